import { append } from './geometry.js';
import type { PageText } from './pageText.js';
import { rowTextOf, type Row } from './rows.js';
import { indexTitles, isChapterLabelHeader, runningTitleRows } from './runningTitles.js';

/**
 * What the parser learns about the whole document before laying out a page: the body font size, the
 * font sizes used by headings, and the lines repeated in the page margins (running headers/footers).
 *
 * `parsePdf` feeds it up to 100 pages (all of most documents) before laying out the first;
 * `parsePdfIncremental` the pages read so far plus a few ahead. Both keep adding pages as they go, so
 * early pages may be laid out with partial statistics: a heading size first seen late can shift the
 * levels of later headings, and a header that only starts repeating after the look-ahead window is
 * kept on the first pages.
 */
export interface DocumentProfile {
  /** Most common font size, by characters. */
  bodySize: number;
  /** Font sizes (rounded to 0.5 pt) of short lines set larger than the body, largest first. */
  headingSizes: number[];
  /** Usual distance between consecutive baselines of lines of this size (pt), when seen often enough. */
  linePitch(size: number): number | null;
  /** Whether a margin line (header/footer) repeats at the same place on most pages known so far. */
  isRepeatedMarginLine(text: string, y: number, pageHeight: number): boolean;
  /**
   * Whether a margin row is a running header or footer: the whole line repeats (see above), or one of
   * its parts does ("CHAPTER 1. OVERVIEW" beside the current section's title), or it starts or ends
   * with the printed page number — a number that runs with the page, at the same offset from the page
   * index as on other pages ("4 Chapter 1. Scope of This Document", "Chapter 3: Tutorial 10").
   */
  isRunningRow(row: Row, pageNumber: number, pageHeight: number): boolean;
  /**
   * The rows of a page that are running headers or footers: bare page numbers, the rows
   * {@link isRunningRow} takes, a chapter label beside the page number ("Chapter 6: The R API 192"),
   * and running titles — an edge row, no larger than the body and standing where margin lines stand
   * on other pages, that starts the title of a heading of the document ("Linking with Libraries",
   * "CHAPTER 3. A FITS PRIMER"), with the next row when the title wraps onto it.
   */
  runningRows(rows: readonly Row[], pageNumber: number, pageHeight: number): Set<Row>;
}

/** Sizes this much larger than the body text are heading sizes. */
export const HEADING_RATIO = 1.12;
/** Longest line (in words) that can be a heading. */
export const MAX_HEADING_WORDS = 20;
/** Top and bottom share of the page where running headers and footers live. */
const MARGIN_BAND = 0.15;
/** Rows examined at the top and at the bottom of each page. */
const MARGIN_ROWS = 2;
/** Two margin lines at the same place differ by at most this (pt). */
const SAME_PLACE = 5;

interface MarginLine {
  key: string;
  y: number;
}

interface PageStats {
  number: number;
  /** Printed number minus page index, for each edge row that starts or ends with a number. */
  numberOffsets: Set<number>;
  charsBySize: Map<number, number>;
  shortLinesBySize: Map<number, number>;
  /** Baseline distances between consecutive rows of the same size. */
  pitchesBySize: Map<number, number[]>;
  margins: MarginLine[];
  /**
   * Short rows set larger than most of the page's text, with their index among the page's rows:
   * heading candidates, whose titles running headers repeat.
   */
  largeRows: Array<{ index: number; size: number; text: string }>;
}

/** A size needs this many baseline distances before its pitch is trusted. */
const MIN_PITCH_SAMPLES = 5;

export interface ProfileBuilder {
  /** Adds a page once (later calls for the same page number are ignored). */
  add(page: PageText): void;
  has(pageNumber: number): boolean;
  profile(): DocumentProfile;
}

export function createProfileBuilder(): ProfileBuilder {
  const pages = new Map<number, PageStats>();
  let cached: DocumentProfile | null = null;
  return {
    add(page) {
      if (pages.has(page.number)) return;
      pages.set(page.number, pageStats(page));
      cached = null;
    },
    has: (pageNumber) => pages.has(pageNumber),
    profile: () => (cached ??= buildProfile([...pages.values()])),
  };
}

/** Font sizes are compared in half points: 15.96 and 16.02 are one size. */
export function sizeKey(size: number): number {
  return Math.round(size * 2) / 2;
}

/**
 * A margin line's identity: digits stand for any number, so "Page 3 of 9" repeats as "page # of #",
 * and so do lower-case roman numerals standing alone (front matter: "Debian Reference xxiv").
 */
export function marginKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/\d+/g, '#')
    .replace(/(^|\s)(?=[ivxlc]+(?:\s|$))c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})(?=\s|$)/g, '$1#')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The printed page number at the start or end of a row, when it stands apart (its own segment). */
function edgeNumber(row: Row): number | null {
  const first = row.segments[0]?.text.trim() ?? '';
  const last = row.segments[row.segments.length - 1]?.text.trim() ?? '';
  for (const text of row.segments.length > 1 ? [first, last] : []) {
    if (/^\d{1,4}$/.test(text)) return Number(text);
  }
  return null;
}

export function inMarginBand(y: number, pageHeight: number): boolean {
  return y < pageHeight * MARGIN_BAND || y > pageHeight * (1 - MARGIN_BAND);
}

/** A bare page number in a margin: "7", "- 7 -", "Page 7", "7 / 12", "Page 7 of 12", "vii". */
export function isPageNumberLine(text: string): boolean {
  const value = text.trim();
  return (
    /^(?:(?:page|p\.)\s*)?\d{1,4}(?:\s*(?:of|\/)\s*\d{1,4})?$/iu.test(value) ||
    /^[-–—]\s*\d{1,4}\s*[-–—]$/u.test(value) ||
    /^(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$/iu.test(value)
  );
}

function pageStats(page: PageText): PageStats {
  const charsBySize = new Map<number, number>();
  for (const run of page.runs) {
    const key = sizeKey(run.size);
    charsBySize.set(key, (charsBySize.get(key) ?? 0) + run.text.replace(/\s+/g, '').length);
  }
  const { rows } = page;
  const shortLinesBySize = new Map<number, number>();
  const pitchesBySize = new Map<number, number[]>();
  rows.forEach((row, index) => {
    const previous = rows[index - 1];
    const key = sizeKey(row.size);
    const delta = previous ? row.y - previous.y : 0;
    if (previous && sizeKey(previous.size) === key && delta > 0.8 * row.size && delta < 3 * row.size) {
      append(pitchesBySize, key, delta);
    }
  });
  for (const row of rows) {
    const words = rowTextOf(row).split(' ').length;
    if (words <= MAX_HEADING_WORDS) {
      const key = sizeKey(row.size);
      shortLinesBySize.set(key, (shortLinesBySize.get(key) ?? 0) + 1);
    }
  }
  const edgeRows = [
    ...rows.slice(0, MARGIN_ROWS),
    ...rows.slice(Math.max(MARGIN_ROWS, rows.length - MARGIN_ROWS)),
  ];
  const inBand = edgeRows.filter((row) => inMarginBand(row.y, page.height));
  const margins = inBand.flatMap((row) => [
    { key: marginKey(rowTextOf(row)), y: row.y },
    // Each part of a row on its own: a running header often pairs a fixed title with a varying one.
    ...(row.segments.length > 1
      ? row.segments.map((segment) => ({ key: `part:${marginKey(segment.text)}`, y: row.y }))
      : []),
  ]);
  const numberOffsets = new Set<number>();
  for (const row of inBand) {
    const printed = edgeNumber(row);
    if (printed !== null) numberOffsets.add(printed - page.number);
  }
  const pageBody = mostCharsSize(charsBySize);
  const largeRows = rows.flatMap((row, index) => {
    const text = rowTextOf(row);
    const large = sizeKey(row.size) >= pageBody * HEADING_RATIO;
    return large && text.split(' ').length <= MAX_HEADING_WORDS
      ? [{ index, size: sizeKey(row.size), text }]
      : [];
  });
  return {
    number: page.number,
    numberOffsets,
    charsBySize,
    shortLinesBySize,
    pitchesBySize,
    margins,
    largeRows,
  };
}

/** The size with the most characters (the smaller one on a tie); 0 when there is no text. */
function mostCharsSize(chars: ReadonlyMap<number, number>): number {
  let bodySize = 0;
  let bodyChars = -1;
  for (const [size, count] of chars) {
    if (count > bodyChars || (count === bodyChars && size < bodySize)) {
      bodySize = size;
      bodyChars = count;
    }
  }
  return bodySize;
}

/** Titles of headings: consecutive large rows of one heading size are one title wrapped over lines. */
function headingTitles(pages: readonly PageStats[], bodySize: number): string[][] {
  const titles: string[][] = [];
  for (const page of [...pages].sort((a, b) => a.number - b.number)) {
    let previous: { index: number; size: number } | null = null;
    for (const row of page.largeRows) {
      if (row.size < bodySize * HEADING_RATIO) {
        previous = null;
        continue;
      }
      const wraps = previous !== null && previous.index === row.index - 1 && previous.size === row.size;
      const last = titles[titles.length - 1];
      if (wraps && last) last.push(row.text);
      else titles.push([row.text]);
      previous = row;
    }
  }
  return titles;
}

function buildProfile(pages: PageStats[]): DocumentProfile {
  const chars = new Map<number, number>();
  const shortLines = new Map<number, number>();
  const pitches = new Map<number, number[]>();
  for (const page of pages) {
    for (const [size, values] of page.pitchesBySize) for (const value of values) append(pitches, size, value);
    for (const [size, count] of page.charsBySize) chars.set(size, (chars.get(size) ?? 0) + count);
    for (const [size, count] of page.shortLinesBySize)
      shortLines.set(size, (shortLines.get(size) ?? 0) + count);
  }
  const bodySize = mostCharsSize(chars);
  const headingSizes = [...shortLines.keys()]
    .filter((size) => size >= bodySize * HEADING_RATIO)
    .sort((a, b) => b - a);
  const threshold = Math.max(2, Math.ceil(pages.length / 2));
  // A low quantile: the distance between lines of a paragraph, not the larger one between paragraphs.
  const pitchBySize = new Map<number, number>();
  for (const [size, values] of pitches) {
    if (values.length < MIN_PITCH_SAMPLES) continue;
    values.sort((a, b) => a - b);
    pitchBySize.set(size, values[Math.floor((values.length - 1) / 4)] ?? size);
  }
  const repeats = (key: string, y: number): boolean => {
    let count = 0;
    for (const page of pages) {
      if (page.margins.some((line) => line.key === key && Math.abs(line.y - y) <= SAME_PLACE)) count += 1;
    }
    return count >= threshold;
  };
  // The offset between printed page numbers and page indexes, when the pages agree on one.
  const offsetCounts = new Map<number, number>();
  for (const page of pages) {
    for (const offset of page.numberOffsets) offsetCounts.set(offset, (offsetCounts.get(offset) ?? 0) + 1);
  }
  const offsets = new Set(
    [...offsetCounts].filter(([, count]) => count >= threshold).map(([offset]) => offset),
  );
  const isRepeatedMarginLine = (text: string, y: number, pageHeight: number): boolean =>
    pages.length >= 2 && inMarginBand(y, pageHeight) && repeats(marginKey(text), y);
  const isRunningRow = (row: Row, pageNumber: number, pageHeight: number): boolean => {
    if (pages.length < 2 || !inMarginBand(row.y, pageHeight)) return false;
    if (isRepeatedMarginLine(rowTextOf(row), row.y, pageHeight)) return true;
    if (
      row.segments.length > 1 &&
      row.segments.some((segment) => repeats(`part:${marginKey(segment.text)}`, row.y))
    )
      return true;
    const printed = edgeNumber(row);
    return printed !== null && offsets.has(printed - pageNumber);
  };
  const titles = indexTitles(headingTitles(pages, bodySize || 10));
  // Where margin lines stand on at least one other page than the row's own.
  const atMarginPlace = (row: Row): boolean =>
    pages.filter((page) => page.margins.some((line) => Math.abs(line.y - row.y) <= SAME_PLACE)).length >= 2;
  const bodySized = (row: Row): boolean => sizeKey(row.size) < (bodySize || 10) * HEADING_RATIO;
  return {
    bodySize: bodySize || 10,
    headingSizes,
    linePitch: (size) => pitchBySize.get(sizeKey(size)) ?? null,
    isRepeatedMarginLine,
    isRunningRow,
    runningRows(rows, pageNumber, pageHeight) {
      const inBand = (row: Row): boolean => inMarginBand(row.y, pageHeight);
      const edges = new Set([...rows.slice(0, MARGIN_ROWS), ...rows.slice(-MARGIN_ROWS)]);
      const running = new Set(
        rows.filter(
          (row) =>
            inBand(row) &&
            (isPageNumberLine(rowTextOf(row)) ||
              isRunningRow(row, pageNumber, pageHeight) ||
              (edges.has(row) && bodySized(row) && isChapterLabelHeader(row))),
        ),
      );
      if (pages.length < 2) return running;
      const titled = runningTitleRows(rows, titles, {
        inBand,
        eligible: bodySized,
        atMarginPlace,
        alreadyRunning: (row) => running.has(row),
        edgeRows: MARGIN_ROWS + 1,
      });
      for (const row of titled) running.add(row);
      return running;
    },
  };
}
