import type { ParseContext } from '../context.js';
import { ParseError } from '../errors.js';
import { numberBlocks, type Block, type ParsedDocument } from '../model.js';
import { assertPageCount, createBudget } from './budget.js';
import { baseName, titleFromFileName } from '../fileName.js';
import { buildMetadata, readPackageProperties, textPages } from './officeMetadata.js';
import { findRel, isRelType, openMainPart } from './officePackage.js';
import { attr, childElements, firstChild } from './xml.js';
import { scanSheet } from './xlsxSheet.js';
import { scanSharedStrings } from './xlsxStrings.js';
import { readCellFormats } from './xlsxValues.js';

/**
 * Parses an XLSX from its parts, read through the safe ZIP. Every sheet of `xl/workbook.xml`, in
 * order (hidden ones too, noted on their page), is a page with a level-1 heading of its name and one
 * table of its used range (caption = sheet name). Values are what a spreadsheet shows: strings,
 * TRUE/FALSE, numbers, ISO 8601 dates and times, percentages, formulas by their cached value.
 * The title is the document's own title, else the file name (a sheet name is not a title).
 */
export async function parseXlsx(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  const budget = createBudget(ctx);
  const warnings: string[] = [];
  const { pkg, root, rels } = await openMainPart(bytes, ctx, {
    defaultPart: 'xl/workbook.xml',
    rootLocal: 'workbook',
    kind: 'an Excel workbook',
  });
  const sheets = childElements(firstChild(root, 'sheets') ?? root, 'sheet');
  assertPageCount(sheets.length, ctx.limits.maxPages, 'sheets');
  const stringsPart = findRel(rels, 'sharedStrings')?.target;
  const stringsXml = stringsPart ? await pkg.readText(stringsPart) : null;
  const sharedStrings = stringsXml === null ? [] : scanSharedStrings(stringsXml, budget);
  const stylesPart = findRel(rels, 'styles')?.target;
  const formats = readCellFormats(stylesPart ? await pkg.readXml(stylesPart) : null);
  const date1904 = /^(1|true)$/i.test(attr(firstChild(root, 'workbookPr'), 'date1904') ?? '');
  const properties = await readPackageProperties(pkg);

  const blocks: Block[] = [];
  const notes = new Map<number, string>();
  const names: string[] = [];
  const hidden: string[] = [];
  let filled = 0;
  for (const [i, sheet] of sheets.entries()) {
    budget.checkAborted();
    const page = i + 1;
    const name = attr(sheet, 'name') ?? `Sheet ${page}`;
    names.push(name);
    blocks.push({ type: 'heading', text: name, level: 1, page });
    const remarks: string[] = [];
    const state = attr(sheet, 'state');
    if (state === 'hidden' || state === 'veryHidden') {
      hidden.push(name);
      remarks.push(`sheet "${name}" is hidden in the workbook`);
    }
    const rel = rels.get(attr(sheet, 'r:id') ?? '');
    const chunks = rel && !rel.external && isRelType(rel, 'worksheet') ? pkg.zip.stream(rel.target) : null;
    if (chunks === null) {
      remarks.push(
        rel && isRelType(rel, 'chartsheet') ? `sheet "${name}" is a chart` : `sheet "${name}" has no cells`,
      );
    } else {
      const table = await scanSheet(chunks, { sharedStrings, formats, date1904, budget, limits: ctx.limits });
      filled += table.filled;
      addSheetTable(blocks, remarks, table.cells, name, page);
    }
    if (remarks.length > 0) notes.set(page, remarks.join('; '));
  }
  if (filled === 0) throw new ParseError('empty_document', 'the workbook has no cell with a value');

  numberBlocks(blocks);
  const extra: Record<string, string | number> = { sheets: names.join(', ') };
  if (hidden.length > 0) extra.hiddenSheets = hidden.join(', ');
  return {
    format: '.xlsx',
    sourceFile: baseName(ctx.fileName),
    metadata: buildMetadata({
      properties,
      fallbackTitle: titleFromFileName(ctx.fileName),
      numPages: sheets.length,
      extra,
    }),
    pages: textPages(sheets.length, notes),
    blocks,
    warnings,
  };
}

/** A sheet's cells as its page's table, captioned with the sheet's name; an empty sheet, said so. */
export function addSheetTable(
  blocks: Block[],
  remarks: string[],
  cells: string[][],
  name: string,
  page: number,
): void {
  if (cells.length === 0) {
    remarks.push(`sheet "${name}" is empty`);
    return;
  }
  blocks.push({
    type: 'table',
    table: { index: 0, pageNumber: page, cells, hasHeader: looksLikeHeader(cells), caption: name },
    page,
  });
}

/**
 * A first row reads as a header when there is more below it and at least half of it is filled with
 * text that is not a number, date or boolean.
 */
function looksLikeHeader(cells: string[][]): boolean {
  const first = cells[0];
  if (!first || cells.length < 2) return false;
  const filled = first.filter((cell) => cell !== '');
  if (filled.length === 0 || filled.length * 2 < first.length) return false;
  return filled.every(
    (cell) =>
      !/^[-+]?\d[\d.,]*(?:e[-+]?\d+)?%?$/i.test(cell) &&
      !/^\d{4}-\d{2}-\d{2}/.test(cell) &&
      !/^\d{2}:\d{2}:\d{2}$/.test(cell) &&
      cell !== 'TRUE' &&
      cell !== 'FALSE',
  );
}
