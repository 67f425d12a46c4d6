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
  let columns = mergeSpans(spans(first.segments), first.size);
  let end = start + 1;
  for (; end < lines.length; end++) {
    const line = lines[end];
    const previous = members[members.length - 1];
    if (!line || !previous) break;
    const gap = line.y - previous.y;
    const em = Math.max(line.size, previous.size);
    if (gap <= 0 || gap > MAX_ROW_GAP * em) break;
    if (line.segments.length >= 2) {
      const merged = mergeSpans([...columns, ...spans(line.segments)], em);
      // A line whose segments bridge existing columns is prose (or another table), not a row of this one.
      if (merged.length < Math.max(2, columns.length) || !startsInFirstColumn(line, merged)) break;
      columns = merged;
      members.push(line);
      continue;
    }
    const only = line.segments[0];
    const column = only ? columnOf(only, columns) : -1;
    if (gap <= CONTINUATION_GAP * em && column > 0 && only && only.x1 <= (columns[column]?.hi ?? 0) + em) {
      members.push(line);
      continue;
    }
    break;
  }
  const rowsWithCells = members.filter((line) => line.segments.length >= 2).length;
  if (rowsWithCells < 2 || columns.length < 2) return null;
  const cells = toCells(members, columns);
  if (cells.length < 2) return null;
  return { start, end: start + members.length, cells };
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

function toCells(lines: Line[], columns: Column[]): string[][] {
  const rows: string[][] = [];
  for (const line of lines) {
    const continuation = line.segments.length < 2 && rows.length > 0;
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
