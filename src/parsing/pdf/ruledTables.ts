import { append, type Box } from './geometry.js';
import type { Ruling } from './graphics.js';
import type { TextRun } from './textRun.js';
import { buildRows, rowTextOf } from './rows.js';

/** A table whose cell borders are drawn: its box, its cells, and the runs it took from the page. */
export interface RuledTable {
  box: Box;
  cells: string[][];
  runs: Set<TextRun>;
}

/** Rulings closer than this (pt) are one line (double borders, anti-aliasing offsets). */
const SAME_LINE = 2.5;
/** A horizontal and a vertical ruling touch when they come this close (pt). */
const TOUCH = 2.5;
/** Pages with more distinct rulings than this are drawings, not tables. */
const MAX_RULINGS = 2000;

/**
 * The `accurate` table detector: horizontal and vertical rulings that touch each other form a grid;
 * the distinct x of its vertical lines and y of its horizontal lines are the column and row borders.
 * Each text run goes to the cell its start lies in (a merged cell's text lands in its first cell).
 * Empty rows and columns (left by double borders) are dropped; a grid of fewer than two cells is a
 * frame, not a table.
 */
export function findRuledTables(rulings: readonly Ruling[], runs: readonly TextRun[]): RuledTable[] {
  if (rulings.length > MAX_RULINGS * 10) return [];
  const lines = [
    ...mergeCollinear(rulings.filter((r) => r.horizontal)),
    ...mergeCollinear(rulings.filter((r) => !r.horizontal)),
  ];
  // Vector drawings (maps, charts) can hold thousands of strokes; pairing them all would be quadratic.
  if (lines.length > MAX_RULINGS) return [];
  const tables: RuledTable[] = [];
  for (const component of components(lines)) {
    const xs = cluster(component.filter((r) => !r.horizontal).map((r) => r.at));
    const ys = cluster(component.filter((r) => r.horizontal).map((r) => r.at));
    if (xs.length < 2 || ys.length < 2 || (xs.length - 1) * (ys.length - 1) < 2) continue;
    const table = fillGrid(xs, ys, runs);
    if (table) tables.push(table);
  }
  return tables.sort((a, b) => a.box.y0 - b.box.y0);
}

function mergeCollinear(rulings: Ruling[]): Ruling[] {
  const sorted = [...rulings].sort((a, b) => a.at - b.at || a.from - b.from);
  const merged: Ruling[] = [];
  for (const ruling of sorted) {
    // Sorted by position: only the latest merged lines can be on the same line as this one.
    let match: Ruling | undefined;
    for (let k = merged.length - 1; k >= 0; k--) {
      const other = merged[k] as Ruling;
      if (ruling.at - other.at > SAME_LINE) break;
      if (ruling.from <= other.to + TOUCH && ruling.to >= other.from - TOUCH) {
        match = other;
        break;
      }
    }
    if (match) {
      match.from = Math.min(match.from, ruling.from);
      match.to = Math.max(match.to, ruling.to);
    } else {
      merged.push({ ...ruling });
    }
  }
  return merged;
}

function touches(h: Ruling, v: Ruling): boolean {
  return v.at >= h.from - TOUCH && v.at <= h.to + TOUCH && h.at >= v.from - TOUCH && h.at <= v.to + TOUCH;
}

/** Groups rulings into connected sets (union-find over horizontal/vertical contacts). */
function components(lines: Ruling[]): Ruling[][] {
  const parent = lines.map((_, index) => index);
  const find = (i: number): number => {
    let root = i;
    while (parent[root] !== root) root = parent[root] ?? root;
    parent[i] = root;
    return root;
  };
  lines.forEach((a, i) => {
    if (!a.horizontal) return;
    lines.forEach((b, j) => {
      if (!b.horizontal && touches(a, b)) parent[find(i)] = find(j);
    });
  });
  const groups = new Map<number, Ruling[]>();
  lines.forEach((line, index) => {
    const root = find(index);
    append(groups, root, line);
  });
  return [...groups.values()];
}

function cluster(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const out: number[] = [];
  for (const value of sorted) {
    const last = out[out.length - 1];
    if (last === undefined || value - last > SAME_LINE) out.push(value);
  }
  return out;
}

function fillGrid(xs: number[], ys: number[], runs: readonly TextRun[]): RuledTable | null {
  const box: Box = { x0: xs[0] ?? 0, y0: ys[0] ?? 0, x1: xs[xs.length - 1] ?? 0, y1: ys[ys.length - 1] ?? 0 };
  const byCell = new Map<string, TextRun[]>();
  const taken = new Set<TextRun>();
  for (const run of runs) {
    // A point just inside the run's first glyph, half way up its x-height.
    const px = run.x + Math.min(run.width / 2, run.size / 4);
    const py = run.y - run.size * 0.3;
    if (px < box.x0 || px > box.x1 || py < box.y0 || py > box.y1) continue;
    const col = slot(xs, px);
    const row = slot(ys, py);
    const key = `${row}:${col}`;
    append(byCell, key, run);
    taken.add(run);
  }
  let cells = ys.slice(1).map((_, row) =>
    xs.slice(1).map((__, col) => {
      const members = byCell.get(`${row}:${col}`);
      return members ? buildRows(members).map(rowTextOf).join(' ') : '';
    }),
  );
  cells = cells.filter((row) => row.some((cell) => cell !== ''));
  const width = cells[0]?.length ?? 0;
  const keep = Array.from({ length: width }, (_, col) => cells.some((row) => row[col] !== ''));
  cells = cells.map((row) => row.filter((_, col) => keep[col]));
  const cellCount = cells.length * (cells[0]?.length ?? 0);
  if (cellCount < 2) return null;
  return { box, cells, runs: taken };
}

/** Index of the interval `[edges[i], edges[i+1])` holding `value`. */
function slot(edges: number[], value: number): number {
  for (let i = edges.length - 2; i >= 0; i--) if (value >= (edges[i] ?? 0)) return i;
  return 0;
}
