/**
 * Office parsing benchmark (`npm run bench -- parsing/office`): parse time of the 50-page DOCX
 * fixture (target ≤ 1 s including chunking; chunking is measured elsewhere) and of a 50,000-row ×
 * 10-column XLSX (target ≤ 3 s), medians over several runs, plus the cost of refusing a 1 GiB bomb.
 * The XLSX is made once by LibreOffice from a generated CSV and cached in the temp folder; without
 * LibreOffice the test ZIP writer builds an equivalent workbook.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PARSE_LIMITS, DEFAULT_PARSE_OPTIONS, type ParseContext } from '../../src/parsing/context.js';
import type { ParsedDocument } from '../../src/parsing/model.js';
import { parseDocx } from '../../src/parsing/office/parseDocx.js';
import { parsePptx } from '../../src/parsing/office/parsePptx.js';
import { parseXlsx } from '../../src/parsing/office/parseXlsx.js';
import { buildZip, deflatedZeros } from '../../test/parsing/office/zipWriter.js';

const fixtures = fileURLToPath(new URL('../../test/fixtures/documents/office/', import.meta.url));
const cacheDir = join(tmpdir(), 'archivist-bench-office');
const ROWS = 50_000;

function ctx(fileName: string): ParseContext {
  return {
    fileName,
    options: DEFAULT_PARSE_OPTIONS,
    limits: DEFAULT_PARSE_LIMITS,
    signal: new AbortController().signal,
    ocr: { recognize: () => Promise.reject(new Error('unused')), close: () => Promise.resolve() },
    describer: { describe: () => Promise.reject(new Error('unused')) },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

async function measure(
  label: string,
  runs: number,
  bytes: Uint8Array,
  parse: (bytes: Uint8Array, ctx: ParseContext) => Promise<ParsedDocument>,
  fileName: string,
): Promise<ParsedDocument> {
  let doc = await parse(bytes, ctx(fileName)); // warm-up: module and JIT start-up are not parse time
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    doc = await parse(bytes, ctx(fileName));
    times.push(performance.now() - start);
  }
  const blocks = doc.blocks.length;
  console.log(
    `${label}: median ${median(times).toFixed(1)} ms, min ${Math.min(...times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms ` +
      `over ${runs} runs (${(bytes.byteLength / 1024).toFixed(0)} KiB, ${doc.metadata.numPages} pages, ${blocks} blocks)`,
  );
  return doc;
}

/** 50,000 rows × 10 columns: numbers, dates, strings, booleans, like an exported report. */
function workbookBytes(): { bytes: Uint8Array; source: string } {
  const cached = join(cacheDir, 'rows50k.xlsx');
  if (existsSync(cached)) return { bytes: readFileSync(cached), source: `LibreOffice (cached ${cached})` };
  mkdirSync(cacheDir, { recursive: true });
  const lines = ['id,date,region,product,units,price,revenue,paid,rating,comment'];
  for (let i = 1; i <= ROWS; i += 1) {
    const units = i % 500;
    const price = (i % 97) / 4;
    lines.push(
      `${i},2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')},Region ${i % 7},` +
        `Product ${i % 113},${units},${price.toFixed(2)},${(units * price).toFixed(2)},${i % 3 ? 'TRUE' : 'FALSE'},${(i % 5) + 1},Comment number ${i}`,
    );
  }
  const csv = join(cacheDir, 'rows50k.csv');
  writeFileSync(csv, lines.join('\n') + '\n');
  const convert = spawnSync(
    'soffice',
    [
      `-env:UserInstallation=file://${join(cacheDir, 'profile')}`,
      '--headless',
      '--convert-to',
      'xlsx',
      '--infilter=CSV:44,34,76,1',
      '--outdir',
      cacheDir,
      csv,
    ],
    { stdio: 'ignore', timeout: 120_000 },
  );
  if (convert.status === 0 && existsSync(cached))
    return { bytes: readFileSync(cached), source: 'LibreOffice from CSV' };
  return { bytes: handWrittenWorkbook(), source: 'test ZIP writer (LibreOffice unavailable)' };
}

function handWrittenWorkbook(): Buffer {
  const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const rows: string[] = [];
  for (let r = 1; r <= ROWS; r += 1) {
    const cells = Array.from({ length: 10 }, (_, c) => {
      const ref = `${String.fromCharCode(65 + c)}${r}`;
      return c % 3 === 0 ? `<c r="${ref}" t="s"><v>${r % 100}</v></c>` : `<c r="${ref}"><v>${r * c}</v></c>`;
    });
    rows.push(`<row r="${r}">${cells.join('')}</row>`);
  }
  const strings = Array.from({ length: 100 }, (_, i) => `<si><t>label ${i}</t></si>`).join('');
  return buildZip([
    {
      name: 'xl/workbook.xml',
      data: `<workbook xmlns="${main}" xmlns:r="${rel}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${rel}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    },
    {
      name: 'xl/worksheets/sheet1.xml',
      data: `<worksheet xmlns="${main}"><sheetData>${rows.join('')}</sheetData></worksheet>`,
    },
    { name: 'xl/sharedStrings.xml', data: `<sst xmlns="${main}">${strings}</sst>` },
  ]);
}

async function bombRejection(): Promise<void> {
  const bomb = buildZip([
    {
      name: '_rels/.rels',
      data: '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    },
    { name: 'word/document.xml', deflated: deflatedZeros(1024 * 1024 * 1024), declaredSize: 4096 },
  ]);
  const times: number[] = [];
  for (let i = 0; i < 10; i += 1) {
    const start = performance.now();
    await parseDocx(bomb, ctx('bomb.docx')).catch(() => undefined);
    times.push(performance.now() - start);
  }
  console.log(
    `1 GiB DOCX bomb with a lying header: rejected in median ${median(times).toFixed(1)} ms over 10 runs`,
  );
}

const docx = readFileSync(join(fixtures, 'long.docx'));
await measure('DOCX 50 pages (long.docx), parse', 20, docx, parseDocx, 'long.docx');
await measure(
  'PPTX 4 slides (slides.pptx), parse',
  20,
  readFileSync(join(fixtures, 'slides.pptx')),
  parsePptx,
  'slides.pptx',
);
const workbook = workbookBytes();
console.log(`XLSX source: ${workbook.source}`);
const rssBefore = process.memoryUsage().rss;
await measure(`XLSX ${ROWS} rows × 10 columns, parse`, 7, workbook.bytes, parseXlsx, 'rows50k.xlsx');
console.log(
  `RSS after the XLSX runs: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB (before: ${(rssBefore / 2 ** 20).toFixed(0)} MB)`,
);
await bombRejection();
