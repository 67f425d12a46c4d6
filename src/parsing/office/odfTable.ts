import type { ParseLimits } from '../context.js';
import { ParseError } from '../errors.js';
import type { Budget } from './budget.js';
import { usedRange } from './xlsxRange.js';
import { attr, childElements, type XmlElement } from './xml.js';

export interface OdfTableEnv {
  budget: Budget;
  limits: Pick<ParseLimits, 'maxRows' | 'maxRowFields' | 'maxFieldChars' | 'maxCells'>;
  /** The text a (non-covered) cell shows. */
  cellText(cell: XmlElement): string;
}

export interface OdfTable {
  cells: string[][];
  /** Cells with a value. */
  filled: number;
  /** Rows inside `table:table-header-rows`. */
  headerRows: number;
}

/**
 * `text`: a table of a text document or slide — a merged cell's text fills every position it covers
 * (as the DOCX reader does), trailing empty rows and columns are dropped. `sheet`: a spreadsheet —
 * a merged value stays in its first cell (as the XLSX reader does) and only the used range is kept.
 */
export type OdfTableMode = 'text' | 'sheet';

/** No span is copied over more positions than this: a real merged cell is far smaller. */
const MAX_SPAN = 1000;
const MAX_COPIED_POSITIONS = 10_000;
const ROW_CONTAINERS = new Set(['table-header-rows', 'table-rows', 'table-row-group']);

/**
 * Reads a `table:table` into a grid. `table:number-rows-repeated` and `table:number-columns-repeated`
 * are honoured without expanding empty repeats (spreadsheet writers repeat empty cells to the sheet's
 * edge: a row of 16,384 blank columns, a million blank rows): only positions that receive a value
 * cost memory or time, and they are checked against the limits (`too_large`) before anything is
 * allocated, so `number-columns-repeated="1000000000"` on a filled cell fails at once.
 */
export function readOdfTable(table: XmlElement, env: OdfTableEnv, mode: OdfTableMode): OdfTable {
  const { limits } = env;
  const rows: (string[] | undefined)[] = [];
  const covers = new Map<string, string>();
  let rowIndex = 0;
  let minRow = Infinity;
  let maxRow = -1;
  let filled = 0;
  let headerRows = 0;

  const tooLarge = (what: string, limit: number, setting: string): ParseError =>
    new ParseError('too_large', `a table has ${what}; the limit is ${limit} (${setting})`);

  const readRow = (row: XmlElement, inHeader: boolean): void => {
    const repeat = repeated(row, 'table:number-rows-repeated');
    const cells = childElements(row).filter(
      (c) => c.local === 'table-cell' || c.local === 'covered-table-cell',
    );
    // Blank text is no value (a "cleared" cell): it neither extends the range nor costs a position.
    const values = cells.map((cell) => {
      const text = cell.local === 'table-cell' ? env.cellText(cell) : '';
      return /\S/.test(text) ? text : '';
    });
    const hasValue = values.some((v) => v !== '') || (mode === 'text' && covers.size > 0);
    if (!hasValue) {
      rowIndex += repeat;
      if (inHeader) headerRows += repeat;
      return;
    }
    for (let copy = 0; copy < repeat; copy += 1) {
      if (rowIndex >= limits.maxRows)
        throw tooLarge(`more than ${limits.maxRows} rows`, limits.maxRows, 'PARSE_MAX_ROWS');
      let col = 0;
      const out: string[] = [];
      cells.forEach((cell, i) => {
        const times = repeated(cell, 'table:number-columns-repeated');
        const value = values[i] ?? '';
        if (cell.local === 'covered-table-cell') {
          if (mode === 'sheet' || covers.size === 0) {
            col += times;
            return;
          }
          for (let k = 0; k < times && col < limits.maxRowFields; k += 1, col += 1) {
            const text = covers.get(`${rowIndex}:${col}`);
            if (text) place(out, col, text);
          }
          return;
        }
        if (value === '') {
          col += times;
          return;
        }
        if (value.length > limits.maxFieldChars) {
          throw tooLarge(
            `a cell longer than ${limits.maxFieldChars} characters`,
            limits.maxFieldChars,
            'PARSE_MAX_FIELD_CHARS',
          );
        }
        if (col + times > limits.maxRowFields) {
          throw tooLarge(
            `more than ${limits.maxRowFields} columns`,
            limits.maxRowFields,
            'PARSE_MAX_ROW_FIELDS',
          );
        }
        for (let k = 0; k < times; k += 1, col += 1) {
          place(out, col, value);
          if (mode === 'text') coverSpan(cell, rowIndex, col, value);
        }
      });
      rows[rowIndex] = out;
      if (rowIndex < minRow) minRow = rowIndex;
      if (rowIndex > maxRow) maxRow = rowIndex;
      if (inHeader) headerRows += 1;
      rowIndex += 1;
    }
  };

  const place = (out: string[], col: number, value: string): void => {
    filled += 1;
    if (filled > limits.maxCells)
      throw new ParseError('too_large', `a table has more than ${limits.maxCells} cells with values`);
    out[col] = value;
  };

  /** Remembers the positions a spanning cell covers, so covered cells show its text (text mode). */
  const coverSpan = (cell: XmlElement, row: number, col: number, value: string): void => {
    const colSpan = Math.min(repeated(cell, 'table:number-columns-spanned'), MAX_SPAN);
    const rowSpan = Math.min(repeated(cell, 'table:number-rows-spanned'), MAX_SPAN);
    if (colSpan * rowSpan <= 1 || colSpan * rowSpan > MAX_COPIED_POSITIONS) return;
    for (let r = 0; r < rowSpan; r += 1) {
      for (let c = 0; c < colSpan; c += 1) if (r > 0 || c > 0) covers.set(`${row + r}:${col + c}`, value);
    }
  };

  const walk = (container: XmlElement, inHeader: boolean): void => {
    for (const child of childElements(container)) {
      if (child.local === 'table-row') readRow(child, inHeader);
      else if (ROW_CONTAINERS.has(child.local)) walk(child, inHeader || child.local === 'table-header-rows');
    }
  };
  walk(table, false);

  if (maxRow === -1) return { cells: [], filled: 0, headerRows };
  const bounds = usedRange(rows, minRow, maxRow);
  if (!bounds) return { cells: [], filled: 0, headerRows };
  const top = mode === 'sheet' ? bounds.minRow : 0;
  const left = mode === 'sheet' ? bounds.minCol : 0;
  const width = bounds.maxCol - left + 1;
  env.budget.addCells((bounds.maxRow - top + 1) * width);
  const cells: string[][] = [];
  for (let r = top; r <= bounds.maxRow; r += 1) {
    const source = rows[r];
    const row = new Array<string>(width);
    for (let c = 0; c < width; c += 1) row[c] = source?.[left + c] ?? '';
    cells.push(row);
  }
  return { cells, filled, headerRows: Math.max(headerRows - top, 0) };
}

/** A repeat or span count: a positive integer, 1 when absent or malformed. */
function repeated(element: XmlElement, name: string): number {
  const value = Number.parseInt(attr(element, name) ?? '1', 10);
  return Number.isFinite(value) && value >= 1 ? value : 1;
}
