/**
 * The labels documentation generators set above an admonition box (DocBook/dblatex, Sphinx, AsciiDoc
 * PDFs): bold or larger than the body, alone on their line, so font size and weight alone read them
 * as headings — and every "Tip" became a section, splitting the section it sits in. Singular only:
 * "Notes" or "Warnings" alone on a line is a real section title far more often than a box label.
 */
const LABEL = /^(note|tip|hint|warning|caution|important|danger|attention)\s*:?$/iu;

/** The label without its colon when the whole line is an admonition label, else `null`. */
export function admonitionLabel(text: string): string | null {
  const match = LABEL.exec(text.trim());
  return match?.[1] ?? null;
}
