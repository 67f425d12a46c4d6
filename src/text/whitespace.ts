/**
 * Display tidying of extracted text: invisible junk removed, words hyphenated at line ends joined,
 * the lines of a paragraph joined, runs of white space collapsed.
 */

/** Words in the document, lower case (hyphenated forms included), used to judge line-end hyphens. */
export type Vocabulary = Pick<ReadonlySet<string>, 'has'>;

// BOM/zero-width no-break space, bidi embeddings/overrides/isolates, LRM/RLM/ALM and control characters other
// than tab and newline: extraction artifacts that are invisible and break matching. ZWJ/ZWNJ stay
// (they carry meaning in Persian and Indic scripts).
const INVISIBLE = /[\uFEFF\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u00AD]/g;
const CONTROLS = /(?![\t\n\r])\p{Cc}/gu;
const ANY_INVISIBLE = /[\uFEFF\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u00AD]|(?![\t\n\r])\p{Cc}/u;

// A word broken at a line end: "infor-\nmation", also with the Unicode hyphen U+2010.
// Anchored at a word start so a long run of letters is scanned once, not once per letter.
const LINE_END_HYPHEN =
  /(?<![\p{L}\p{M}])(\p{L}[\p{L}\p{M}]*)[-\u2010][ \t]*\r?\n[ \t]*([\p{L}\p{N}][\p{L}\p{M}\p{N}]*)/gu;
const ANY_LINE_END_HYPHEN = /[-\u2010][ \t]*\r?\n/;
// A soft hyphen is only ever typographic: at a line end it joins the two halves.
const LINE_END_SOFT_HYPHEN = /\u00AD[ \t]*\r?\n[ \t]*/g;

// First elements that form real hyphenated compounds ("well-known", "self-evident"): a line-end
// hyphen after them is kept when the document does not tell otherwise.
const COMPOUND_FIRST = new Set([
  'self',
  'well',
  'ill',
  'half',
  'all',
  'ex',
  'non',
  'cross',
  'so',
  'long',
  'high',
]);

/**
 * The runs of white space collapsing changes: any with a character other than a space, or of two or
 * more. Replacing every run, single spaces included, rebuilt the whole text a second time (a piece
 * per word); with this one, text that is already tidy comes back as it is.
 */
const UNTIDY_SPACE = /(?: \s|[^\S ])\s*/gu;

/** `text` with each run of white space made one space, and none at either end. */
export function collapseWhitespace(text: string): string {
  return text.replace(UNTIDY_SPACE, ' ').trim();
}

/** Removes invisible characters and soft hyphens; turns control characters into spaces. */
export function stripInvisible(text: string): string {
  // Most text has neither: one test instead of two replacements that copy it.
  if (!ANY_INVISIBLE.test(text)) return text;
  return text.replace(INVISIBLE, '').replace(CONTROLS, ' ');
}

/**
 * Tidies one block's text for display. Preformatted text (code) keeps its lines and indentation;
 * only trailing spaces and blank edges go.
 */
export function tidyText(
  text: string,
  options: { preformatted?: boolean; vocabulary?: Vocabulary } = {},
): string {
  const visible = stripInvisible(text.includes('\u00AD') ? text.replace(LINE_END_SOFT_HYPHEN, '') : text);
  if (options.preformatted) {
    return visible
      .split(/\r?\n/)
      .map((line) => line.replace(/\s+$/u, ''))
      .join('\n')
      .replace(/^\n+|\n+$/g, '');
  }
  const vocabulary = options.vocabulary ?? new Set<string>();
  // The word-break regex is slow on long text; a hyphen before a line end is rare.
  const joined = ANY_LINE_END_HYPHEN.test(visible)
    ? visible.replace(LINE_END_HYPHEN, (_match, left: string, right: string) =>
        joinHyphenated(left, right, vocabulary),
      )
    : visible;
  return collapseWhitespace(joined);
}

/**
 * Decides whether a line-end hyphen was typographic (join: "information") or real (keep:
 * "well-known"). The document itself is the best judge (has it used "well-known" or
 * "information" elsewhere?); then case and digits ("Jean-\nPaul", "COVID-\n19" keep theirs); then a
 * short list of compound-forming words; otherwise the hyphen is typographic, as in most body text.
 */
function joinHyphenated(left: string, right: string, vocabulary: Vocabulary): string {
  const hyphenated = `${left}-${right}`;
  const joined = `${left}${right}`;
  if (vocabulary.has(hyphenated.toLowerCase())) return hyphenated;
  if (vocabulary.has(joined.toLowerCase())) return joined;
  if (/^[\p{Lu}\p{Lt}\p{N}]/u.test(right)) return hyphenated;
  if (COMPOUND_FIRST.has(left.toLowerCase())) return hyphenated;
  return joined;
}
