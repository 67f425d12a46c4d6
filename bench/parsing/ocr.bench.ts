/**
 * OCR throughput on a full A4 page of text rendered at 150 DPI (test/fixtures/documents/image/a4-page.png,
 * 1241×1754 px, ~360 words), English + Arabic models loaded as in production:
 *
 *   npm run bench -- parsing/ocr
 *
 * - one page alone (one worker busy),
 * - two pages at once through the pool (both workers, i.e. both cores, busy): wall time and seconds per page,
 * - parseImage of the page end to end (decode, preview, OCR).
 * Medians over RUNS runs after a warm-up that starts the workers.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { DEFAULT_PARSE_LIMITS, DEFAULT_PARSE_OPTIONS, type ParseContext } from '../../src/parsing/context.js';
import { parseImage } from '../../src/parsing/image/parseImage.js';
import { createTesseractOcr } from '../../src/parsing/ocr/tesseractOcr.js';

const RUNS = 5;
const page = readFileSync(new URL('../../test/fixtures/documents/image/a4-page.png', import.meta.url));
const signal = new AbortController().signal;
const languages = ['eng', 'ara'] as const;
const ocr = createTesseractOcr({ workers: 2 });

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const recognize = async (): Promise<{ ms: number; words: number }> => {
  const started = performance.now();
  const result = await ocr.recognize(page, { languages, signal });
  return { ms: performance.now() - started, words: result.text.split(/\s+/).filter(Boolean).length };
};

console.log(`cores: ${availableParallelism()}, workers: 2, runs: ${RUNS} (medians)`);
await Promise.all([recognize(), recognize()]);

const alone: number[] = [];
let words = 0;
for (let run = 0; run < RUNS; run += 1) {
  const result = await recognize();
  alone.push(result.ms);
  words = result.words;
}
console.log(
  `A4 page @150 DPI, one page alone:        ${seconds(median(alone))} per page (${words} words read)`,
);

const pairWall: number[] = [];
const pairEach: number[] = [];
for (let run = 0; run < RUNS; run += 1) {
  const started = performance.now();
  const results = await Promise.all([recognize(), recognize()]);
  pairWall.push(performance.now() - started);
  pairEach.push(...results.map((result) => result.ms));
}
const wall = median(pairWall);
console.log(`A4 page @150 DPI, two at once (2 cores): ${seconds(wall / 2)} per page of throughput`);
console.log(
  `                                         (${seconds(wall)} wall for 2 pages; ${seconds(median(pairEach))} latency per page)`,
);

const ctx: ParseContext = {
  fileName: 'a4-page.png',
  options: DEFAULT_PARSE_OPTIONS,
  limits: DEFAULT_PARSE_LIMITS,
  signal,
  ocr,
  describer: { describe: () => Promise.reject(new Error('not used')) },
};
const parses: number[] = [];
for (let run = 0; run < RUNS; run += 1) {
  const started = performance.now();
  await parseImage(new Uint8Array(page), ctx);
  parses.push(performance.now() - started);
}
console.log(`parseImage of the page (decode + preview + OCR): ${seconds(median(parses))}`);
await ocr.close();
