import type { Line } from './readingOrder.js';
import type { Segment } from './rows.js';

/** A table found among consecutive lines of a region: lines `start` to `end - 1` make it up. */
export interface LineTable {
  start: number;
  end: number;
  cells: string[][];
}

interface Column {
  lo: number;
  hi: number;
}

/** Rows of a table are at most this far apart (ems); farther, the table has ended. */
const MAX_ROW_GAP = 3;
/** A wrapped cell line follows its row closer than this (ems). */
const CONTINUATION_GAP = 1.4;
/** Lines whose font sizes differ by less than this (pt) are set alike. */
const SAME_SIZE = 0.5;
/** Column spans closer than this (ems) are one column. */
const COLUMN_MERGE = 0.5;

/**
 * The `fast` table detector: runs of at least two consecutive lines that are each split into two or
 * more segments, whose segments line up in the same columns (the union of the segments' horizontal
 * spans leaves the same gaps on every row, so left-, right- and centre-aligned cells all fit). A line
 * with a single segment right under a row, inside a column other than the first, is a wrapped cell.
 */
export function findAlignedTables(lines: readonly Line[]): LineTable[] {
  const tables: LineTable[] = [];
  let i = 0;
  while (i < lines.length) {
    const table = tableAt(lines, i);
    if (table) {
      tables.push(table);
      i = table.end;
    } else {
      i += 1;
    }
  }
  return tables;
}

function tableAt(lines: readonly Line[], start: number): LineTable | null {
  const first = lines[start];
  if (!first || first.segments.length < 2) return null;
  const members: Line[] = [first];
  const wraps = new Set<Line>();
  // Lone cells taken on trust: they stay if the table goes on after them, or if it ends with the
  // region and they follow at the spacing of wrapped lines (not the wider one before a heading).
  let onTrust: Array<{ line: Line; tight: boolean }> = [];
  let columns = mergeSpans(spans(first.segments), first.size);
  let ended = false;
  for (let end = start + 1; end < lines.length; end++) {
    const line = lines[end];
    const previous = members[members.length - 1];
    if (!line || !previous) break;
    const gap = line.y - previous.y;
    const em = Math.max(line.size, previous.size);
    const kind =
      gap <= 0 || gap > MAX_ROW_GAP * em ? 'none' : memberKind(line, previous, columns, gap, members.length);
    if (kind === 'none') {
      ended = true;
      break;
    }
    if (kind === 'row') columns = rowColumns(line, columns, members.length === 1) ?? columns;
    members.push(line);
    if (kind === 'wrap') wraps.add(line);
    onTrust = kind === 'lone' ? [...onTrust, { line, tight: gap <= CONTINUATION_GAP * em }] : [];
  }
  const firstLoose = onTrust.findIndex((cell) => !cell.tight);
  const dropped = ended ? onTrust.length : firstLoose < 0 ? 0 : onTrust.length - firstLoose;
  members.splice(members.length - dropped, dropped);
  const rowsWithCells = members.filter((line) => line.segments.length >= 2).length;
  if (rowsWithCells < 2 || columns.length < 2) return null;
  const cells = toCells(members, wraps, columns);
  if (cells.length < 2) return null;
  return { start, end: start + members.length, cells };
}

/**
 * How `line` joins a table with these columns: as a `row` (two segments or more, see
 * {@link rowColumns}), as the wrapped continuation of the cell above (`wrap`: one segment right
 * under a row, inside a column other than the first), as a `lone` cell (one segment clear of the
 * neighbouring columns: its row's other cells span rows and stand higher or lower), or not (`none`).
 */
function memberKind(
  line: Line,
  previous: Line,
  columns: Column[],
  gap: number,
  members: number,
): 'row' | 'wrap' | 'lone' | 'none' {
  if (line.segments.length >= 2) return rowColumns(line, columns, members === 1) ? 'row' : 'none';
  const only = line.segments[0];
  const column = only ? columnOf(only, columns) : -1;
  if (!only || column < 0) return 'none';
  const em = line.size;
  if (column > 0 && gap <= CONTINUATION_GAP * em && only.x1 <= (columns[column]?.hi ?? 0) + em) return 'wrap';
  // A cell is set like the cells around it: a larger line after a table is a heading.
  const sameSize = Math.abs(line.size - previous.size) < SAME_SIZE;
  return sameSize && betweenNeighbours(only, columns, column) ? 'lone' : 'none';
}

/** Whether a segment keeps clear of the columns left and right of its own. */
function betweenNeighbours(segment: Segment, columns: Column[], column: number): boolean {
  return (
    segment.x0 > (columns[column - 1]?.hi ?? -Infinity) && segment.x1 < (columns[column + 1]?.lo ?? Infinity)
  );
}

/**
 * The table's columns once `line` (two segments or more) joins it, or null when the line is not a
 * row of it: its segments bridge columns (prose, or another table), or it starts right of the first
 * column and opens a column of its own. A row whose first cells are empty (a maintainer's second
 * line under a language) keeps to the columns there are. Right under the first line, fewer columns
 * are allowed: a header may name two columns over what the rows print as one ("Extension Language"
 * over ".dox C / C++").
 */
function rowColumns(line: Line, columns: Column[], underFirst: boolean): Column[] | null {
  const em = line.size;
  const merged = mergeSpans([...columns, ...spans(line.segments)], em);
  if (merged.length < 2) return null;
  if (merged.length < columns.length && !underFirst) return null;
  if (!startsInFirstColumn(line, merged) && merged.length !== columns.length) return null;
  return merged;
}

function spans(segments: readonly Segment[]): Column[] {
  return segments.map((segment) => ({ lo: segment.x0, hi: segment.x1 }));
}

function mergeSpans(columns: Column[], em: number): Column[] {
  const sorted = [...columns].sort((a, b) => a.lo - b.lo);
  const merged: Column[] = [];
  for (const column of sorted) {
    const last = merged[merged.length - 1];
    if (last && column.lo <= last.hi + COLUMN_MERGE * em) last.hi = Math.max(last.hi, column.hi);
    else merged.push({ ...column });
  }
  return merged;
}

function startsInFirstColumn(line: Line, columns: Column[]): boolean {
  const first = columns[0];
  return first !== undefined && line.x0 <= first.hi;
}

function columnOf(segment: Segment, columns: Column[]): number {
  let best = -1;
  let bestOverlap = 0;
  columns.forEach((column, index) => {
    const overlap = Math.min(segment.x1, column.hi) - Math.max(segment.x0, column.lo);
    if (overlap > bestOverlap) {
      best = index;
      bestOverlap = overlap;
    }
  });
  return best;
}

/** One row per line, but a wrapped line adds to the cell above it. */
function toCells(lines: Line[], wraps: ReadonlySet<Line>, columns: Column[]): string[][] {
  const rows: string[][] = [];
  for (const line of lines) {
    const continuation = wraps.has(line) && rows.length > 0;
    const row = continuation ? (rows[rows.length - 1] as string[]) : columns.map(() => '');
    for (const segment of line.segments) {
      const index = columnOf(segment, columns);
      if (index < 0) continue;
      const cell = row[index] ?? '';
      row[index] = cell === '' ? segment.text : `${cell} ${segment.text}`;
    }
    if (!continuation) rows.push(row);
  }
  return rows;
}
