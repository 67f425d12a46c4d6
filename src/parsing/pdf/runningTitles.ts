import { rowTextOf, type Row } from './rows.js';

/**
 * Running headers that name the current chapter or section: "Linking with Libraries" over a page of
 * section 4.2, "CHAPTER 3. A FITS PRIMER", "12 Getting started", "Chapter 6: The R API 192". Their
 * text changes with the part of the document, so it does not repeat on most pages, and it need not
 * carry the page number. What gives such a line away is that it repeats the title of a heading set
 * in the document (or names a chapter beside the page number), stands where margin lines stand on
 * other pages, and is set no larger than the body.
 */

/** Shortest title key (letters and digits) taken for a running title: shorter ones match by chance. */
const MIN_TITLE_KEY = 4;

/**
 * A title reduced to what survives typesetting: no chapter label or section number, lower case,
 * letters and digits only — so "4.1.1. Building Libraries From Source Code or Object / Files", the
 * header "Building Libraries From Source Code or Object Files" and "BUILDING LIBRARIES…" agree, and
 * so do a heading and a header hyphenated at different places ("MD Sig-natures", "MD Signa-tures").
 */
export function titleKey(text: string): string {
  return text
    .trim()
    .replace(/^(?:chapter|appendix|part|section)\s+(?:\d+|[A-Z]|[IVXLC]+)\b[.:]?\s*/iu, '')
    .replace(/^(?:\d{1,3}(?:\.\d{1,3})*|[A-Z](?:\.\d{1,3})+)\.?(?:\s+|$)/u, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/** A row's text without the page number standing apart at its start or end. */
export function withoutEdgeNumber(row: Row): string {
  const parts = row.segments.map((segment) => segment.text.trim());
  if (parts.length > 1 && /^\d{1,4}$/.test(parts[parts.length - 1] ?? '')) parts.pop();
  else if (parts.length > 1 && /^\d{1,4}$/.test(parts[0] ?? '')) parts.shift();
  return parts.join(' ');
}

/** Whether the row holds a page number standing apart at its start or end. */
export function hasEdgeNumber(row: Row): boolean {
  return withoutEdgeNumber(row) !== rowTextOf(row);
}

/**
 * "Chapter 6: The R API", "CHAPTER 2. CREATING THE LIBRARY", "Appendix B: Index": what a running
 * header beside a page number says; a body line does not start so and end with a page number.
 */
const CHAPTER_LABEL = /^(?:chapter|appendix)\s+(?:\d+|[A-Z]|[IVXLC]+)\s*[.:]\s*\S/iu;

export function isChapterLabelHeader(row: Row): boolean {
  return hasEdgeNumber(row) && CHAPTER_LABEL.test(withoutEdgeNumber(row));
}

/** The titles of a document's headings, each findable by any of its starts. */
export interface TitleIndex {
  /** Whether `key` is the start of one title (or the whole of it). */
  startsTitle(key: string): boolean;
}

/**
 * Indexes headings' titles. `lines` are the texts of heading-sized rows in page order; consecutive
 * rows of one size (`null` between groups) are one title wrapped over lines.
 */
export function indexTitles(groups: readonly string[][]): TitleIndex {
  const keys = groups.map((lines) => titleKey(lines.join(' '))).filter((key) => key.length > 0);
  // Separators keep a start from running over into the next title.
  const joined = `\u0000${keys.join('\u0000')}\u0000`;
  return {
    startsTitle: (key) => key.length >= MIN_TITLE_KEY && joined.includes(`\u0000${key}`),
  };
}

/**
 * The rows at the top (then the bottom) of a page that are a running title: the first candidate row
 * must stand at a margin place (`atMarginPlace`), then the rows that follow it down — a header
 * title wrapped over two lines — as long as the text read so far still starts a title. `eligible`
 * screens rows set larger than the body (headings are never running titles) and rows already known
 * as margin lines are stepped over.
 */
export function runningTitleRows(
  rows: readonly Row[],
  titles: TitleIndex,
  options: {
    inBand(row: Row): boolean;
    eligible(row: Row): boolean;
    atMarginPlace(row: Row): boolean;
    alreadyRunning(row: Row): boolean;
    /** Rows examined from each edge. */
    edgeRows: number;
  },
): Set<Row> {
  const found = new Set<Row>();
  const scan = (ordered: readonly Row[], joins: boolean): void => {
    let key = '';
    for (const row of ordered.slice(0, options.edgeRows)) {
      if (!options.inBand(row)) return;
      if (options.alreadyRunning(row)) continue;
      if (!options.eligible(row)) return;
      if (key === '' && !options.atMarginPlace(row)) return;
      const next = key + titleKey(withoutEdgeNumber(row));
      if (!titles.startsTitle(next) || (key !== '' && !joins)) return;
      found.add(row);
      key = next;
    }
  };
  scan(rows, true);
  // At the bottom only single lines: a wrapped title read upwards would be read backwards.
  scan([...rows].reverse(), false);
  return found;
}
