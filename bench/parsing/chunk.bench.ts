/**
 * Chunking throughput on a generated 200-page document (headings every page, a 40-row table every ten
 * pages, ~450 words a page), for each mode, plus cleaning and incremental chunking of the same
 * document. Prints medians over several runs after a warm-up.
 *
 *   npm run bench -- parsing/chunk
 */
import { performance } from 'node:perf_hooks';
import { chunkDocument } from '../../src/parsing/chunk/chunkDocument.js';
import { createIncrementalChunker } from '../../src/parsing/chunk/incremental.js';
import type { ChunkingMode } from '../../src/parsing/chunk/model.js';
import { cleanDocument } from '../../src/parsing/clean/cleanDocument.js';
import type { Block } from '../../src/parsing/model.js';
import { longReport, makeDocument } from '../../test/parsing/chunk/sampleDocuments.js';

const PAGES = 200;
const RUNS = 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function measure(run: () => void): number {
  run(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  return median(times);
}

const document = cleanDocument(longReport(PAGES), { removeUrls: true, normalizeArabic: true });
const sizes = { targetWords: 500, maxWords: 1500 };
const words = chunkDocument(document, { mode: 'paragraph', ...sizes, documentId: 'bench' }).stats.totalWords;
console.log(
  `document: ${PAGES} pages, ${document.blocks.length} blocks, ${words} words; median of ${RUNS} runs`,
);

const rows: string[][] = [['mode', 'strategy', 'chunks', 'ms', 'words/s', 'pages/s']];
for (const mode of ['auto', 'semantic', 'page', 'paragraph', 'disabled'] as ChunkingMode[]) {
  let strategy = '';
  let chunks = 0;
  const ms = measure(() => {
    const result = chunkDocument(document, { mode, ...sizes, documentId: 'bench' });
    strategy = result.stats.strategyUsed;
    chunks = result.chunks.length;
  });
  rows.push([
    mode,
    strategy,
    String(chunks),
    ms.toFixed(1),
    Math.round((words / ms) * 1000).toLocaleString('en'),
    Math.round((PAGES / ms) * 1000).toLocaleString('en'),
  ]);
}

const pages: Block[][] = Array.from({ length: PAGES }, () => []);
for (const block of document.blocks) pages[block.page - 1]?.push(block);
const incrementalMs = measure(() => {
  const chunker = createIncrementalChunker({ mode: 'auto', ...sizes, documentId: 'bench' });
  for (const page of pages) chunker.push(page);
  chunker.finish();
});
rows.push([
  'incremental',
  'semantic',
  '',
  incrementalMs.toFixed(1),
  Math.round((words / incrementalMs) * 1000).toLocaleString('en'),
  Math.round((PAGES / incrementalMs) * 1000).toLocaleString('en'),
]);

// Cleaning sees text as PDF extraction gives it: hard line breaks and words hyphenated at line ends.
const raw = longReport(PAGES);
raw.blocks = raw.blocks.map((block) => {
  if (block.type !== 'paragraph') return block;
  let n = 0;
  const wrapped = block.text
    .replace(/ /g, () => ((n += 1) % 12 === 0 ? '\n' : ' '))
    .replace(/(\w{4})(\w{4,}) (?=\w)/g, (match, a: string, b: string) =>
      n++ % 9 === 0 ? `${a}-\n${b} ` : match,
    );
  return { ...block, text: wrapped };
});
const cleanMs = measure(() => {
  cleanDocument(raw, { removeUrls: true, normalizeArabic: true });
});
rows.push([
  'cleanDocument',
  '',
  '',
  cleanMs.toFixed(1),
  Math.round((words / cleanMs) * 1000).toLocaleString('en'),
  Math.round((PAGES / cleanMs) * 1000).toLocaleString('en'),
]);

// A spreadsheet-sized table: 50,000 rows of 8 cells, as an XLSX sheet arrives.
const cells = [['Id', 'Name', 'City', 'Amount', 'Date', 'Status', 'Category', 'Notes']];
for (let i = 0; i < 50_000; i += 1) {
  cells.push([
    String(i),
    `Customer ${i}`,
    ['Cairo', 'Dubai', 'London'][i % 3] ?? '',
    (i * 1.37).toFixed(2),
    '2024-05-01',
    i % 5 ? 'paid' : 'open',
    'Retail',
    i % 10 ? '' : 'Follow up next week',
  ]);
}
const sheet = makeDocument(
  [{ type: 'table', table: { index: 0, pageNumber: 1, cells, hasHeader: true, caption: 'Sheet1' }, page: 1 }],
  { format: '.xlsx' },
);
let sheetWords = 0;
const sheetCleanMs = measure(() => {
  cleanDocument(sheet, { removeUrls: true, normalizeArabic: true });
});
const cleanSheet = cleanDocument(sheet, { removeUrls: true, normalizeArabic: true });
let sheetChunks = 0;
const sheetChunkMs = measure(() => {
  const result = chunkDocument(cleanSheet, { mode: 'auto', ...sizes, documentId: 'bench' });
  sheetWords = result.stats.totalWords;
  sheetChunks = result.chunks.length;
});
rows.push(['50k-row clean', '', '', sheetCleanMs.toFixed(1), '', '']);
rows.push([
  '50k-row chunk',
  'auto',
  String(sheetChunks),
  sheetChunkMs.toFixed(1),
  Math.round((sheetWords / sheetChunkMs) * 1000).toLocaleString('en'),
  '',
]);

const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
for (const row of rows) console.log(row.map((cell, column) => cell.padStart(widths[column] ?? 0)).join('  '));
