/**
 * Parse throughput of the text parsers on ~5 MB documents generated here (deterministic text):
 * Markdown (headings, lists, tables, code), an HTML page (nav/footer boilerplate around an article
 * with headings, lists, tables) and CSV (8 columns, quoted fields). Also JSON, reStructuredText and
 * plain text of the same size, and format detection. Prints medians over several runs after a
 * warm-up, with the peak RSS.
 *
 *   npm run bench -- parsing/text
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DEFAULT_PARSE_LIMITS, DEFAULT_PARSE_OPTIONS, type ParseContext } from '../../src/parsing/context.js';
import { detectFormat } from '../../src/parsing/detect/index.js';
import type { ParsedDocument } from '../../src/parsing/model.js';
import { textParsers, type TextParser } from '../../src/parsing/text/index.js';

const TARGET_BYTES = 5 * 1024 * 1024;
const RUNS = 5;

const WORDS = (
  'river bank erosion pin survey station sample water quality oxygen nitrate turbidity volunteer season ' +
  'measure record photo transect channel sediment willow flood basin upper lower laboratory report result'
).split(' ');

function createWords(seed: number): (count: number) => string {
  let state = seed;
  return (count) => {
    const out: string[] = [];
    for (let i = 0; i < count; i += 1) {
      state = (state * 1103515245 + 12345) % 2147483648;
      out.push(WORDS[state % WORDS.length] ?? 'river');
    }
    return out.join(' ');
  };
}

function fill(part: (i: number) => string, head = '', tail = ''): string {
  const parts: string[] = [head];
  let size = head.length + tail.length;
  for (let i = 0; size < TARGET_BYTES; i += 1) {
    const text = part(i);
    parts.push(text);
    size += text.length;
  }
  parts.push(tail);
  return parts.join('');
}

function markdown(): string {
  const words = createWords(1);
  return fill(
    (i) =>
      `## Section ${i}\n\n${words(60)}. ${words(40)}.\n\n### Details ${i}\n\n- ${words(6)}\n- ${words(6)}\n  - ${words(4)}\n\n` +
      `| Station | Oxygen | Notes |\n| --- | --- | --- |\n| S${i} | ${i % 10}.5 | ${words(5)} |\n| T${i} | ${i % 7}.1 | ${words(5)} |\n\n` +
      (i % 5 === 0 ? '```\nriverwatch survey --site RW-04\n```\n\n' : ''),
    '---\ntitle: Benchmark\n---\n\n# Benchmark document\n\n',
  );
}

function html(): string {
  const words = createWords(2);
  const head =
    '<!doctype html><html lang="en"><head><title>Benchmark</title><style>p{margin:0}</style></head><body>' +
    '<header><nav><ul><li><a href="/">Home</a></li><li><a href="/a">About</a></li></ul></nav></header>' +
    '<div id="cookie-consent">We use cookies <button>OK</button></div><main><article><h1>Benchmark</h1>';
  return fill(
    (i) =>
      `<h2>Section ${i}</h2><p>${words(60)}. <strong>${words(5)}</strong> ${words(30)}.</p>` +
      `<h3>Details ${i}</h3><ul><li>${words(6)}</li><li>${words(6)}<ul><li>${words(4)}</li></ul></li></ul>` +
      `<table><thead><tr><th>Station</th><th>Oxygen</th></tr></thead><tbody><tr><td>S${i}</td><td>${i % 10}.5</td></tr></tbody></table>`,
    head,
    '</article></main><aside>Related</aside><footer>© Benchmark</footer><script>var x = 1;</script></body></html>',
  );
}

function csv(): string {
  const words = createWords(3);
  return fill(
    (i) =>
      `${i};RW-${i % 97};${(i % 1000) / 10};${i % 3 === 0 ? 'true' : 'false'};"${words(4)}; ${words(3)}";2024-03-${String((i % 28) + 1).padStart(2, '0')};${words(2)};${i * 7}\n`,
    'id;site;value;flag;note;date;tag;count\n',
  );
}

function json(): string {
  const words = createWords(4);
  return fill(
    (i) =>
      `${i === 0 ? '' : ','}{"id":${i},"site":"RW-${i % 97}","value":${(i % 1000) / 10},"note":"${words(8)}","ok":${i % 2 === 0}}`,
    '{"name":"benchmark","records":[',
    ']}',
  );
}

function rst(): string {
  const words = createWords(5);
  return fill(
    (i) =>
      `Section ${i}\n${'='.repeat(`Section ${i}`.length)}\n\n${words(60)}.\n\n* ${words(6)}\n* ${words(6)}\n\n` +
      `+--------+--------+\n| Site   | Value  |\n+========+========+\n| S${String(i % 100).padEnd(5)} | ${String(i % 10).padEnd(6)} |\n+--------+--------+\n\n`,
    'Benchmark\n#########\n\n:Author: Bench\n\n',
  );
}

function txt(): string {
  const words = createWords(6);
  return fill(
    (i) =>
      `${i + 1} Section title\n\n${words(50)}.\n${words(30)}.\n\n- ${words(5)}\n- ${words(5)}\n\n${i % 40 === 39 ? '\f' : ''}`,
  );
}

function context(fileName: string): ParseContext {
  const unused = (): never => {
    throw new Error('not used by text parsers');
  };
  return {
    fileName,
    options: DEFAULT_PARSE_OPTIONS,
    limits: DEFAULT_PARSE_LIMITS,
    signal: new AbortController().signal,
    ocr: { recognize: unused, close: async () => undefined },
    describer: { describe: unused },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function measure(run: () => Promise<unknown>): Promise<number> {
  await run(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return median(times);
}

// `node --import tsx bench/parsing/text.bench.ts .html` measures one format alone (its own peak RSS).
const only = process.argv.slice(2);
const generators: Array<[keyof typeof textParsers, () => string]> = [
  ['.md', markdown],
  ['.html', html],
  ['.csv', csv],
  ['.json', json],
  ['.rst', rst],
  ['.txt', txt],
];
const inputs = generators
  .filter(([ext]) => only.length === 0 || only.includes(ext))
  .map(([ext, generate]) => [ext, generate()] as const);

console.log(
  `text parsers: ~${TARGET_BYTES / 1024 / 1024} MB generated inputs, median of ${RUNS} runs after a warm-up`,
);
const rows: string[][] = [['format', 'MB', 'blocks', 'ms', 'MB/s', 'detect ms']];
for (const [ext, text] of inputs) {
  const bytes = new Uint8Array(Buffer.from(text, 'utf8'));
  const parse: TextParser = textParsers[ext];
  let document: ParsedDocument | null = null;
  const ms = await measure(async () => {
    document = await parse(bytes, context(`bench${ext}`));
  });
  const detectMs = await measure(() => detectFormat(bytes, `bench${ext}`));
  const megabytes = bytes.length / 1024 / 1024;
  const blocks = (document as ParsedDocument | null)?.blocks.length ?? 0;
  rows.push([
    ext,
    megabytes.toFixed(2),
    String(blocks),
    ms.toFixed(0),
    (megabytes / (ms / 1000)).toFixed(1),
    detectMs.toFixed(2),
  ]);
}
const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => (row[c] ?? '').length))) ?? [];
for (const row of rows) console.log(row.map((cell, c) => cell.padStart(widths[c] ?? 0)).join('  '));
// Pages the size of a real article go through Readability (the 5 MB page is above its cut-off).
const article = new Uint8Array(
  readFileSync(new URL('../../test/fixtures/documents/text/article.html', import.meta.url)),
);
if (only.length === 0 || only.includes('.html')) {
  const ms = await measure(() => textParsers['.html'](article, context('article.html')));
  console.log(
    `article.html (${(article.length / 1024).toFixed(1)} KB, Readability path): ${ms.toFixed(1)} ms per page`,
  );
}
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
