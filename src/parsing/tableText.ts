import type { Table } from './model.js';

export function tableRowCount(table: Table): number {
  return table.cells.length;
}

export function tableColumnCount(table: Table): number {
  return table.cells.reduce((widest, row) => Math.max(widest, row.length), 0);
}

/** Plain text: one line per row, cells separated by " | ". */
export function tableToText(table: Table): string {
  return table.cells.map((row) => row.map(flattenCell).join(' | ')).join('\n');
}

/** GitHub-flavoured Markdown. A table without a header row gets an empty one, since GFM requires it. */
export function tableToMarkdown(table: Table): string {
  const cols = tableColumnCount(table);
  if (cols === 0) return '';
  const pad = (row: string[]): string[] => Array.from({ length: cols }, (_, i) => escapeCell(row[i] ?? ''));
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  const [first, ...rest] = table.cells;
  const header = table.hasHeader && first ? pad(first) : Array.from({ length: cols }, () => '');
  const body = table.hasHeader ? rest : table.cells;
  return [
    line(header),
    line(Array.from({ length: cols }, () => '---')),
    ...body.map((row) => line(pad(row))),
  ].join('\n');
}

function flattenCell(cell: string): string {
  return cell.replace(/\s*\n\s*/g, ' ').trim();
}

function escapeCell(cell: string): string {
  return flattenCell(cell).replace(/\|/g, '\\|');
}
