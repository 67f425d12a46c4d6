import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';

/** The corpus's two release CSVs, by the sheet name a workbook made of them gives each. */
export function releaseTables(corpus: string): Array<{ name: string; rows: string[][] }> {
  return [
    ['Debian', `${corpus}csv-debian-releases.csv`],
    ['Ubuntu', `${corpus}csv-ubuntu-releases.csv`],
  ].map(([name, file]) => ({
    name: name!,
    rows: readFileSync(file!, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(',')),
  }));
}

/**
 * A workbook of the release tables, one sheet each, header row bold, and a formatted but empty cell
 * `emptyCell.rowsBelow` rows below the data in `emptyCell.column`, as spreadsheets often carry.
 * With `titleRow`, each sheet starts with a title merged across the table's width first.
 */
export function releaseWorkbook(
  corpus: string,
  options: { titleRow: boolean; emptyCell: { rowsBelow: number; column: number } },
): ExcelJS.Workbook {
  const book = new ExcelJS.Workbook();
  for (const { name, rows } of releaseTables(corpus)) {
    const sheet = book.addWorksheet(name);
    if (options.titleRow) {
      sheet.addRow([`${name} releases`]);
      sheet.mergeCells(1, 1, 1, 4);
    }
    for (const row of rows) sheet.addRow(row);
    sheet.getRow(options.titleRow ? 2 : 1).font = { bold: true };
    sheet.getRow(rows.length + options.emptyCell.rowsBelow).getCell(options.emptyCell.column).fill = {
      type: 'pattern',
      pattern: 'solid',
      fgColor: { argb: 'FFFFFF00' },
    };
  }
  return book;
}
