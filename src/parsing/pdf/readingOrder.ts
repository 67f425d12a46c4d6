import type { Row, Segment } from './rows.js';

/** A line in reading order: the segments of one row inside one region. */
export interface Line {
  segments: Segment[];
  x0: number;
  x1: number;
  /** Baseline. */
  y: number;
  size: number;
  text: string;
  rtl: boolean;
  /** Where the text starts after a list marker. */
  contentX0: number;
}

/** Lines read one after the other: the full page width, or one column of a two-column stretch. */
export interface Region {
  x0: number;
  x1: number;
  lines: Line[];
}

interface Interval {
  lo: number;
  hi: number;
}

/** The gutter of a two-column stretch lies in the middle half of the text area. */
const GUTTER_ZONE = [0.25, 0.75] as const;
/** A gutter is at least this wide (ems of the text around it). */
const MIN_GUTTER = 0.7;
/** Column lines are long: their median width fills at least this share of their column. */
const PROSE_FILL = 0.5;
/** Share of column lines that must be a single segment. */
const PROSE_SINGLE = 0.8;
/** Median words per line of a text column. */
const PROSE_WORDS = 4;
/** Fewest rows that make a two-column stretch. */
const MIN_COLUMN_ROWS = 3;

/**
 * Puts rows in reading order. A stretch of consecutive rows that all leave the same vertical strip
 * empty near the middle of the page, with long lines on both sides, is read as two columns (left
 * column first); everything else is read row by row. Tables also leave empty strips, but their
 * cells are short, which the long-lines test tells apart. More than two columns are not separated.
 */
export function readingOrder(rows: readonly Row[]): Region[] {
  const segments = rows.flatMap((row) => row.segments);
  if (segments.length === 0) return [];
  const left = Math.min(...segments.map((segment) => segment.x0));
  const right = Math.max(...segments.map((segment) => segment.x1));
  const zone: Interval = {
    lo: left + (right - left) * GUTTER_ZONE[0],
    hi: left + (right - left) * GUTTER_ZONE[1],
  };

  const regions: Region[] = [];
  let plain: Row[] = [];
  const flushPlain = (): void => {
    if (plain.length > 0) regions.push(toRegion(plain.map((row) => toLine(row.segments))));
    plain = [];
  };
  let run: { rows: Row[]; free: Interval[] } | null = null;
  const closeRun = (): void => {
    if (!run) return;
    const split = twoColumns(run.rows, run.free);
    if (split) {
      flushPlain();
      regions.push(...split);
    } else {
      plain.push(...run.rows);
    }
    run = null;
  };

  for (const row of rows) {
    const minGutter = MIN_GUTTER * row.size;
    const free = freeIntervals(row, zone).filter((interval) => interval.hi - interval.lo >= minGutter);
    if (run) {
      const shared = intersect(run.free, free).filter((interval) => interval.hi - interval.lo >= minGutter);
      if (shared.length > 0) {
        run.rows.push(row);
        run.free = shared;
        continue;
      }
      closeRun();
    }
    if (free.length > 0) run = { rows: [row], free };
    else plain.push(row);
  }
  closeRun();
  flushPlain();
  return regions;
}

function twoColumns(rows: Row[], free: Interval[]): Region[] | null {
  if (rows.length < MIN_COLUMN_ROWS) return null;
  const gutter = free.reduce((widest, interval) =>
    interval.hi - interval.lo > widest.hi - widest.lo ? interval : widest,
  );
  const leftLines: Line[] = [];
  const rightLines: Line[] = [];
  for (const row of rows) {
    const leftSegments = row.segments.filter((segment) => segment.x1 <= gutter.lo);
    const rightSegments = row.segments.filter((segment) => segment.x0 >= gutter.hi);
    if (leftSegments.length > 0) leftLines.push(toLine(leftSegments));
    if (rightSegments.length > 0) rightLines.push(toLine(rightSegments));
  }
  if (!isProse(leftLines) || !isProse(rightLines)) return null;
  return [toRegion(leftLines), toRegion(rightLines)];
}

/**
 * Lines of running text: most are a single segment, long (median width at least half the column) and
 * wordy (median of four words or more). Table columns fail at least one of these.
 */
function isProse(lines: Line[]): boolean {
  if (lines.length < 2) return false;
  const x0 = Math.min(...lines.map((line) => line.x0));
  const x1 = Math.max(...lines.map((line) => line.x1));
  const single = lines.filter((line) => line.segments.length === 1).length;
  return (
    single >= PROSE_SINGLE * lines.length &&
    median(lines.map((line) => line.x1 - line.x0)) >= PROSE_FILL * (x1 - x0) &&
    median(lines.map((line) => line.text.split(' ').length)) >= PROSE_WORDS
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function freeIntervals(row: Row, zone: Interval): Interval[] {
  let free: Interval[] = [zone];
  for (const segment of row.segments) {
    const next: Interval[] = [];
    for (const interval of free) {
      if (segment.x1 <= interval.lo || segment.x0 >= interval.hi) {
        next.push(interval);
        continue;
      }
      if (segment.x0 > interval.lo) next.push({ lo: interval.lo, hi: segment.x0 });
      if (segment.x1 < interval.hi) next.push({ lo: segment.x1, hi: interval.hi });
    }
    free = next;
  }
  return free;
}

function intersect(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const x of a) {
    for (const y of b) {
      const lo = Math.max(x.lo, y.lo);
      const hi = Math.min(x.hi, y.hi);
      if (hi > lo) out.push({ lo, hi });
    }
  }
  return out;
}

function toLine(segments: Segment[]): Line {
  const sorted = [...segments].sort((a, b) => a.x0 - b.x0);
  const first = sorted[0];
  const chars = (segment: Segment): number => segment.text.length;
  const main = sorted.reduce((best, segment) => (chars(segment) > chars(best) ? segment : best));
  const rtl = main.rtl;
  const ordered = rtl ? [...sorted].reverse() : sorted;
  return {
    segments: sorted,
    x0: first?.x0 ?? 0,
    x1: Math.max(...sorted.map((segment) => segment.x1)),
    y: main.y,
    size: main.size,
    text: ordered.map((segment) => segment.text).join(' '),
    rtl,
    contentX0: first?.contentX0 ?? 0,
  };
}

function toRegion(lines: Line[]): Region {
  return {
    x0: Math.min(...lines.map((line) => line.x0)),
    x1: Math.max(...lines.map((line) => line.x1)),
    lines,
  };
}
