import { mergeHeaderRows } from './headerRows.js';
import { isElement, tagOf, toArray, type DomElement } from './htmlDom.js';

export interface HtmlTable {
  cells: string[][];
  hasHeader: boolean;
  caption: string | null;
}

/** Spans beyond these are malformed markup; clamping keeps a hostile `colspan=100000` cheap. */
const MAX_COLSPAN = 1000;
const MAX_COLUMNS = 1000;

/**
 * Reads an HTML table into a rectangular grid. Spans are expanded so every row has every column:
 * a rowspan repeats its text down (each row then reads complete), a colspan repeats its text
 * across in header rows (so each column gets a name) and leaves the extra slots empty in body rows
 * (so a full-width row is not read three times). Several header rows are merged into one, since
 * the model has a single header row.
 */
export function readHtmlTable(table: DomElement, textOf: (cell: DomElement) => string): HtmlTable {
  const rows = rowsOf(table);
  const grid: string[][] = [];
  // Header rows at the top of the table; a header row further down is read as data.
  let headerRows = 0;
  // Slots already filled by a rowspan from above: row → column → text.
  const carried = new Map<number, Map<number, string>>();

  rows.forEach((row, r) => {
    const cells = toArray(row.children).filter((cell) => ['td', 'th'].includes(tagOf(cell)));
    const inHead = row.parentNode !== null && isElement(row.parentNode) && tagOf(row.parentNode) === 'thead';
    const isHeader = inHead || (cells.length > 0 && cells.every((cell) => tagOf(cell) === 'th'));
    if (isHeader && headerRows === r) headerRows += 1;
    const out: string[] = [];
    const fromAbove = carried.get(r) ?? new Map<number, string>();
    let column = 0;
    const skipCarried = (): void => {
      while (fromAbove.has(column)) {
        out[column] = fromAbove.get(column) ?? '';
        column += 1;
      }
    };
    for (const cell of cells) {
      skipCarried();
      const text = textOf(cell);
      const colspan = clampSpan(cell.getAttribute('colspan'), MAX_COLSPAN);
      const rowspan = clampSpan(cell.getAttribute('rowspan'), rows.length - r);
      for (let c = 0; c < colspan && column < MAX_COLUMNS; c += 1, column += 1) {
        const value = c === 0 || isHeader ? text : '';
        out[column] = value;
        for (let below = 1; below < rowspan; below += 1) {
          const target = carried.get(r + below) ?? new Map<number, string>();
          target.set(column, value);
          carried.set(r + below, target);
        }
      }
    }
    skipCarried();
    for (const [col, text] of fromAbove) if (out[col] === undefined) out[col] = text;
    carried.delete(r);
    grid.push(Array.from(out, (cell) => cell ?? ''));
  });

  const width = grid.reduce((widest, row) => Math.max(widest, row.length), 0);
  const rectangular = grid.map((row) => [...row, ...Array<string>(width - row.length).fill('')]);
  const caption = toArray(table.children).find((child) => tagOf(child) === 'caption');
  const captionText = caption ? textOf(caption) : '';
  return { ...mergeHeaderRows(rectangular, headerRows), caption: captionText || null };
}

/** Direct rows of this table (through thead/tbody/tfoot), never rows of a nested table. */
function rowsOf(table: DomElement): DomElement[] {
  const rows: DomElement[] = [];
  const sections = { thead: [] as DomElement[], body: [] as DomElement[], tfoot: [] as DomElement[] };
  for (const child of toArray(table.children)) {
    const tag = tagOf(child);
    if (tag === 'tr') sections.body.push(child);
    else if (tag === 'thead' || tag === 'tbody' || tag === 'tfoot') {
      const target = tag === 'thead' ? sections.thead : tag === 'tfoot' ? sections.tfoot : sections.body;
      for (const row of toArray(child.children)) if (tagOf(row) === 'tr') target.push(row);
    }
  }
  rows.push(...sections.thead, ...sections.body, ...sections.tfoot);
  return rows;
}

function clampSpan(value: string | null, max: number): number {
  const span = Number.parseInt(value ?? '1', 10);
  return Number.isFinite(span) && span > 1 ? Math.min(span, Math.max(1, max)) : 1;
}
