import { mergeHeaderRows } from './headerRows.js';
import { rstInlineText } from './rstInline.js';

export interface RstTable {
  cells: string[][];
  hasHeader: boolean;
}

export const GRID_BORDER = /^\+(?:[-=]+\+)+\s*$/;
/** The top border of a simple table: two columns at least. */
export const SIMPLE_BORDER = /^=+(?: +=+)+\s*$/;
/** A simple-table border of any width: the top border, the header separator, the bottom border. */
export const SIMPLE_ANY_BORDER = /^=+(?: +=+)*\s*$/;
const SIMPLE_SPAN_LINE = /^-+(?: +-+)*\s*$/;

interface Cell {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

/**
 * A grid table, found the way docutils finds it: from each cell's top-left corner, scan right
 * along the top edge, down the right edge and back along the bottom and left edges until a closed
 * rectangle is found; a `+` that does not close one means the cell spans further. Spanning cells
 * are expanded: rowspans repeat their text down, colspans repeat across in the header and leave
 * the other slots empty in body rows. Returns null for a malformed grid.
 */
export function parseGridTable(block: readonly string[]): RstTable | null {
  const width = block.reduce((widest, line) => Math.max(widest, line.trimEnd().length), 0);
  const headerLine = block.findIndex((line, i) => i > 0 && /^\+(?:=+\+)+\s*$/.test(line));
  // '=' only marks the header separator; scanning treats it like '-'.
  const lines = block.map((line) => line.trimEnd().padEnd(width, ' ').replace(/=/g, '-'));
  const at = (row: number, column: number): string => lines[row]?.[column] ?? ' ';
  const height = lines.length;

  const closesAt = (top: number, left: number, bottom: number, right: number): boolean => {
    for (let c = right - 1; c > left; c -= 1)
      if (at(bottom, c) !== '-' && at(bottom, c) !== '+') return false;
    if (at(bottom, left) !== '+') return false;
    for (let r = bottom - 1; r > top; r -= 1) if (at(r, left) !== '|' && at(r, left) !== '+') return false;
    return true;
  };
  const scanDown = (top: number, left: number, right: number): number => {
    for (let r = top + 1; r < height; r += 1) {
      const char = at(r, right);
      if (char === '+') {
        if (closesAt(top, left, r, right)) return r;
      } else if (char !== '|') return -1;
    }
    return -1;
  };
  const scanCell = (top: number, left: number): Cell | null => {
    for (let c = left + 1; c < width; c += 1) {
      const char = at(top, c);
      if (char === '+') {
        const bottom = scanDown(top, left, c);
        if (bottom >= 0) return { top, left, bottom, right: c };
      } else if (char !== '-') return null;
    }
    return null;
  };

  const cells: Cell[] = [];
  const done = new Set<string>();
  const queue: Array<[number, number]> = [[0, 0]];
  while (queue.length > 0) {
    const [top, left] = queue.shift() ?? [0, 0];
    const key = `${top},${left}`;
    if (done.has(key) || top >= height - 1 || left >= width - 1) continue;
    done.add(key);
    const cell = scanCell(top, left);
    if (!cell) continue;
    cells.push(cell);
    queue.push([cell.top, cell.right], [cell.bottom, cell.left]);
  }
  if (cells.length === 0) return null;

  const rowEdges = [...new Set(cells.flatMap((cell) => [cell.top, cell.bottom]))].sort((a, b) => a - b);
  const columnEdges = [...new Set(cells.flatMap((cell) => [cell.left, cell.right]))].sort((a, b) => a - b);
  const grid: string[][] = Array.from({ length: rowEdges.length - 1 }, () =>
    Array<string>(columnEdges.length - 1).fill(''),
  );
  const headerRows = headerLine > 0 ? rowEdges.filter((edge) => edge < headerLine).length : 0;
  for (const cell of cells) {
    const text = rstInlineText(
      lines
        .slice(cell.top + 1, cell.bottom)
        .map((line) => line.slice(cell.left + 1, cell.right).trim())
        .filter((line) => line !== '')
        .join('\n'),
    );
    const firstRow = rowEdges.indexOf(cell.top);
    const lastRow = rowEdges.indexOf(cell.bottom);
    const firstColumn = columnEdges.indexOf(cell.left);
    const lastColumn = columnEdges.indexOf(cell.right);
    for (let r = firstRow; r < lastRow; r += 1) {
      for (let c = firstColumn; c < lastColumn; c += 1) {
        const row = grid[r];
        if (row) row[c] = c === firstColumn || r < headerRows ? text : '';
      }
    }
  }
  return mergeHeaderRows(grid, headerRows);
}

/**
 * A simple table: `=====  =====` borders give the columns; an optional second border closes the
 * header; a line whose first column is blank continues the row above; text in the last column
 * runs to the end of the line.
 */
export function parseSimpleTable(block: readonly string[]): RstTable | null {
  const first = block[0] ?? '';
  const columns: Array<{ start: number }> = [];
  for (const match of first.matchAll(/=+/g)) columns.push({ start: match.index });
  if (columns.length === 0) return null;
  const borders = block.flatMap((line, i) => (SIMPLE_ANY_BORDER.test(line) ? [i] : []));
  const headerEnd = borders.length >= 3 ? (borders[1] ?? -1) : -1;

  const rows: Array<{ cells: string[]; header: boolean }> = [];
  for (let i = 1; i < block.length; i += 1) {
    const line = block[i] ?? '';
    if (line.trim() === '' || SIMPLE_ANY_BORDER.test(line) || SIMPLE_SPAN_LINE.test(line)) continue;
    const cells = columns.map((column, c) =>
      line.slice(column.start, columns[c + 1]?.start ?? undefined).trim(),
    );
    const previous = rows[rows.length - 1];
    if (cells[0] === '' && previous && previous.header === i < headerEnd) {
      previous.cells = previous.cells.map((text, c) => [text, cells[c] ?? ''].filter(Boolean).join('\n'));
    } else {
      rows.push({ cells, header: i < headerEnd });
    }
  }
  if (rows.length === 0) return null;
  const headerRows = rows.filter((row) => row.header).length;
  return mergeHeaderRows(
    rows.map((row) => row.cells.map(rstInlineText)),
    headerRows,
  );
}
