import type { Budget } from './budget.js';

/** One cell as Word or PowerPoint writes it, before spans are expanded. */
export interface GridCell {
  text: string;
  /** Grid columns the cell covers (`gridSpan`). */
  colSpan: number;
  /** A continuation of the cell above (`vMerge` continue): takes that cell's text. */
  mergedUp: boolean;
  /** A continuation of the cell to the left (`hMerge`): takes that cell's text. */
  mergedLeft: boolean;
}

export interface GridRow {
  /** Empty grid columns before the first cell (`w:gridBefore`). */
  skipBefore: number;
  cells: GridCell[];
}

/** No real table spans more columns than this; a larger `gridSpan` is clamped (it would only cost memory). */
const MAX_SPAN = 1000;

/**
 * Expands spans into a rectangular grid: a merged cell's text fills every grid position it covers, so
 * each row reads on its own (rows are what chunking splits on). Short rows are padded with "".
 */
export function buildGrid(rows: readonly GridRow[], budget: Budget): string[][] {
  const grid: string[][] = [];
  for (const row of rows) {
    const out: string[] = [];
    const skip = clampSpan(row.skipBefore, 0);
    budget.addCells(skip);
    for (let i = 0; i < skip; i += 1) out.push('');
    for (const cell of row.cells) {
      const span = clampSpan(cell.colSpan, 1);
      budget.addCells(span);
      const above = grid[grid.length - 1];
      for (let k = 0; k < span; k += 1) {
        if (cell.mergedUp) out.push(above?.[out.length] ?? '');
        else if (cell.mergedLeft) out.push(out[out.length - 1] ?? '');
        else out.push(cell.text);
      }
    }
    grid.push(out);
  }
  const width = grid.reduce((widest, row) => Math.max(widest, row.length), 0);
  for (const row of grid) {
    budget.addCells(width - row.length);
    while (row.length < width) row.push('');
  }
  return grid;
}

function clampSpan(value: number, min: number): number {
  if (!Number.isFinite(value)) return min;
  return Math.min(Math.max(Math.trunc(value), min), MAX_SPAN);
}

/** Whether any cell has text: an all-blank table is layout, not data. */
export function hasText(cells: readonly (readonly string[])[]): boolean {
  return cells.some((row) => row.some((cell) => cell !== ''));
}
