import { LIST_MARKER_ONLY } from './lists.js';
import type { TextRun } from './textRun.js';
import { collapseWhitespace } from '../../text/whitespace.js';

/** Runs of one row that sit close together: a line of a paragraph, a table cell, one column's line. */
export interface Segment {
  x0: number;
  x1: number;
  /** Baseline of the segment's dominant run. */
  y: number;
  /** Dominant font size (by characters). */
  size: number;
  text: string;
  rtl: boolean;
  runs: TextRun[];
  /** Where the text starts after a list marker (`x0` when there is none). */
  contentX0: number;
}

/** Everything printed on (about) the same baseline, split into segments at wide gaps. */
export interface Row {
  y: number;
  size: number;
  segments: Segment[];
}

/** Baselines closer than this (in ems) belong to one row: absorbs superscripts, excludes the next line. */
const SAME_ROW = 0.45;
/** A horizontal gap wider than this (in ems) starts a new segment: a column gutter or a table gap. */
const SEGMENT_GAP = 1.5;
/** A list marker stays glued to its text across a gap up to this (in ems): the marker's tab stop. */
const MARKER_GAP = 4;
/** A gap wider than this (in ems) between runs is a space. */
const SPACE_GAP = 0.15;

/** Groups runs into rows (top to bottom) and rows into segments (left to right). */
export function buildRows(runs: readonly TextRun[]): Row[] {
  const sorted = [...runs].sort((a, b) => a.y - b.y || a.x - b.x);
  const rows: TextRun[][] = [];
  let current: TextRun[] = [];
  let ref: TextRun | undefined;
  for (const run of sorted) {
    if (ref && Math.abs(run.y - ref.y) <= SAME_ROW * Math.max(run.size, ref.size)) {
      current.push(run);
      if (run.size > ref.size) ref = run;
      continue;
    }
    if (current.length > 0) rows.push(current);
    current = [run];
    ref = run;
  }
  if (current.length > 0) rows.push(current);
  return rows.map(toRow);
}

function toRow(runs: TextRun[]): Row {
  const segments = splitSegments(dedupe(runs.sort((a, b) => a.x - b.x)));
  const dominant = dominantRun(runs);
  return { y: dominant.y, size: dominant.size, segments };
}

/** Drops runs printed twice at (almost) the same place: some producers fake bold that way. */
function dedupe(runs: TextRun[]): TextRun[] {
  return runs.filter(
    (run, index) =>
      !runs
        .slice(Math.max(0, index - 3), index)
        .some(
          (other) =>
            other.text === run.text && Math.abs(other.x - run.x) < 1 && Math.abs(other.y - run.y) < 1,
        ),
  );
}

function splitSegments(runs: TextRun[]): Segment[] {
  const groups: { runs: TextRun[]; contentX0: number | null }[] = [];
  let group: { runs: TextRun[]; contentX0: number | null } | undefined;
  let end = -Infinity;
  for (const run of runs) {
    const gap = run.x - end;
    const em = run.size;
    // Only a group of one or two runs that has not taken text yet can be a bare list marker.
    const markerOnly =
      group !== undefined &&
      group.contentX0 === null &&
      group.runs.length <= 2 &&
      LIST_MARKER_ONLY.test(joinRuns(group.runs));
    if (group && (gap <= SEGMENT_GAP * em || (markerOnly && gap <= MARKER_GAP * em))) {
      if (markerOnly) group.contentX0 = run.x;
      group.runs.push(run);
    } else {
      group = { runs: [run], contentX0: null };
      groups.push(group);
    }
    end = Math.max(end, run.x + run.width);
  }
  return groups.map(({ runs: members, contentX0 }) => toSegment(members, contentX0));
}

function toSegment(runs: TextRun[], contentX0: number | null): Segment {
  const x0 = Math.min(...runs.map((run) => run.x));
  const dominant = dominantRun(runs);
  const rtlChars = runs.filter((run) => run.rtl).reduce((sum, run) => sum + run.text.length, 0);
  const totalChars = runs.reduce((sum, run) => sum + run.text.length, 0);
  const rtl = rtlChars * 2 > totalChars;
  return {
    x0,
    x1: Math.max(...runs.map((run) => run.x + run.width)),
    y: dominant.y,
    size: dominant.size,
    text: joinRuns(runs, rtl),
    rtl,
    runs,
    contentX0: contentX0 ?? x0,
  };
}

/** Joins runs of one line in reading order, inserting a space where the gap between them is one. */
function joinRuns(runs: readonly TextRun[], rtl = false): string {
  const ordered = [...runs].sort((a, b) => (rtl ? b.x + b.width - (a.x + a.width) : a.x - b.x));
  let text = '';
  let previous: TextRun | undefined;
  for (const run of ordered) {
    if (previous) {
      const gap = rtl ? previous.x - (run.x + run.width) : run.x - (previous.x + previous.width);
      const spaced = /\s$/.test(text) || /^\s/.test(run.text);
      if (!spaced && gap > SPACE_GAP * Math.min(run.size, previous.size)) text += ' ';
    }
    text += run.text;
    previous = run;
  }
  return collapseWhitespace(text);
}

export function rowTextOf(row: Row): string {
  return row.segments.map((segment) => segment.text).join(' ');
}

function dominantRun(runs: readonly TextRun[]): TextRun {
  const bySize = new Map<number, { chars: number; run: TextRun }>();
  for (const run of runs) {
    const key = Math.round(run.size * 2) / 2;
    const entry = bySize.get(key);
    if (entry) entry.chars += run.text.length;
    else bySize.set(key, { chars: run.text.length, run });
  }
  let best: { chars: number; run: TextRun } | undefined;
  for (const entry of bySize.values()) if (!best || entry.chars > best.chars) best = entry;
  // `runs` is never empty here: rows and segments are built from at least one run.
  return (best ?? { run: runs[0] as TextRun }).run;
}

/** Share of a segment's characters set in one of `boldFonts`. */
export function boldShare(segment: Segment, boldFonts: ReadonlySet<string>): number {
  let bold = 0;
  let total = 0;
  for (const run of segment.runs) {
    const chars = run.text.replace(/\s+/g, '').length;
    total += chars;
    if (boldFonts.has(run.fontId)) bold += chars;
  }
  return total === 0 ? 0 : bold / total;
}
