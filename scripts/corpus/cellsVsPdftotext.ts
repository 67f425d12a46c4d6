/**
 * Table-cell recall of our PDF parser beside that of `pdftotext -layout` (poppler-utils), on the same
 * hand-listed cells: `node --import tsx scripts/corpus/cellsVsPdftotext.ts test/corpus/heldout`
 * prints, for every PDF of that corpus folder whose expectations list table cells, how many of them
 * each reads.
 *
 * One rule for both sides: a cell is read when its text stands whole, between word boundaries, in one
 * unit of the output — one table cell of ours, one line of pdftotext's. Case, spacing, quotes and
 * dashes are compared as the parsing evaluation compares them (`normalise`). Cells of one or two
 * characters are left out: any line holds them.
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { loadCorpus, parseCorpusFile } from '../../eval/parsing/evaluate.js';
import { normalise } from '../../eval/parsing/score.js';
import type { ParseServices } from '../../src/parsing/job.js';

/** Whether `cell` stands whole in `unit`: not glued to a letter or digit on either side. */
export function standsIn(cell: string, unit: string): boolean {
  for (let at = unit.indexOf(cell); at >= 0; at = unit.indexOf(cell, at + 1)) {
    const before = unit.slice(0, at);
    const after = unit.slice(at + cell.length);
    if (!/[\p{L}\p{N}]$/u.test(before) && !/^[\p{L}\p{N}]/u.test(after)) return true;
  }
  return false;
}

/** How many of `cells` stand whole in one of `units`. */
export function cellsRead(cells: readonly string[], units: readonly string[]): number {
  const normalised = units.map(normalise);
  return cells.filter((cell) => normalised.some((unit) => standsIn(normalise(cell), unit))).length;
}

const unused = (): never => {
  throw new Error('not used when comparing table cells');
};
const services: ParseServices = {
  // Text-layer PDFs only: a page that needed OCR would make this comparison meaningless.
  ocr: { recognize: unused, close: async () => undefined },
  describer: { describe: unused },
  summarizer: { summarize: unused },
};

async function main(folder: string): Promise<void> {
  const corpus = pathToFileURL(`${resolve(folder)}/`);
  console.log('| document | cells | ours | pdftotext -layout |');
  console.log('|---|---|---|---|');
  let total = 0;
  let ours = 0;
  let theirs = 0;
  for (const entry of loadCorpus({ corpus })) {
    const cells = (entry.expectation.tables?.cells ?? []).filter((cell) => normalise(cell).length > 2);
    if (!entry.file.endsWith('.pdf') || cells.length === 0) continue;
    const document = await parseCorpusFile(entry.file, services, corpus);
    const tableCells = document.blocks.flatMap((block) =>
      block.type === 'table' ? block.table.cells.flat() : [],
    );
    const layout = execFileSync('pdftotext', ['-layout', new URL(entry.file, corpus).pathname, '-'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const oursRead = cellsRead(cells, tableCells);
    const theirsRead = cellsRead(cells, layout.split('\n'));
    total += cells.length;
    ours += oursRead;
    theirs += theirsRead;
    console.log(`| ${entry.id} | ${cells.length} | ${oursRead} | ${theirsRead} |`);
  }
  const pct = (value: number): string => (total ? `${((100 * value) / total).toFixed(1)} %` : '-');
  console.log(`| all | ${total} | ${ours} (${pct(ours)}) | ${theirs} (${pct(theirs)}) |`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const folder = process.argv[2];
  if (!folder) {
    console.error('usage: cellsVsPdftotext.ts <corpus folder>');
    process.exit(2);
  }
  await main(folder);
}
