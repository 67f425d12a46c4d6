/**
 * PDF parsing figures:
 * - throughput of `parsePdf` on the 54-page fixture (parse only, median of 7 runs after a warm-up,
 *   fast and accurate table modes);
 * - time to the first page item of `parsePdfIncremental` (cold: first call in a fresh process, pdf.js
 *   not yet loaded; warm: median of 7 later calls);
 * - peak RSS of a fresh process parsing a ~200-page PDF (generated once with LibreOffice in the temp
 *   folder from the long fixture's generator).
 *
 *   npm run bench -- parsing/pdf
 *
 * tsx roughly doubles the memory of pdf.js (it transforms and source-maps its 3 MB of JavaScript), so
 * the figures come from child processes running the parser compiled by tsc under plain `node`, as in
 * production, pinned to one core with `taskset` when available (sharp limited to one thread).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { DEFAULT_PARSE_LIMITS, DEFAULT_PARSE_OPTIONS, type ParseContext } from '../../src/parsing/context.js';
import { parsePdf, parsePdfIncremental } from '../../src/parsing/pdf/index.js';

const RUNS = 7;
const CHAPTERS_FOR_200_PAGES = 67;
const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const workDir = join(tmpdir(), 'archivist-bench-pdf');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function makeContext(fileName: string, tableMode: 'fast' | 'accurate'): ParseContext {
  return {
    fileName,
    options: { ...DEFAULT_PARSE_OPTIONS, tableMode },
    limits: DEFAULT_PARSE_LIMITS,
    signal: new AbortController().signal,
    ocr: {
      recognize: () => Promise.reject(new Error('no OCR in this benchmark')),
      close: () => Promise.resolve(),
    },
    describer: { describe: () => Promise.reject(new Error('no describer in this benchmark')) },
  };
}

/** Runs inside the child process; prints one JSON line. */
async function child(mode: string, file: string): Promise<void> {
  const startRss = process.memoryUsage().rss;
  const started = performance.now();
  sharp.concurrency(1);
  const bytes = new Uint8Array(readFileSync(file));
  if (mode === 'throughput') {
    const result: Record<string, unknown> = {};
    for (const tableMode of ['fast', 'accurate'] as const) {
      const ctx = (): ParseContext => makeContext('long.pdf', tableMode);
      const pages = (await parsePdf(bytes, ctx())).metadata.numPages; // warm-up
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        await parsePdf(bytes, ctx());
        times.push(performance.now() - t0);
      }
      result[tableMode] = { pages, medianMs: median(times), pagesPerSecond: (pages / median(times)) * 1000 };
    }
    console.log(JSON.stringify(result));
  } else if (mode === 'first-page') {
    const firstPage = async (): Promise<{ metadata: number; page: number }> => {
      const t0 = performance.now();
      let metadata = 0;
      for await (const item of parsePdfIncremental(bytes, makeContext('long.pdf', 'fast'))) {
        if (item.type === 'metadata') metadata = performance.now() - t0;
        else return { metadata, page: performance.now() - t0 };
      }
      return { metadata, page: Number.NaN };
    };
    const cold = await firstPage();
    const warm: Array<{ metadata: number; page: number }> = [];
    for (let i = 0; i < RUNS; i++) warm.push(await firstPage());
    console.log(
      JSON.stringify({
        coldMs: cold.page,
        warmMetadataMs: median(warm.map((run) => run.metadata)),
        warmFirstPageMs: median(warm.map((run) => run.page)),
      }),
    );
  } else {
    let peak = 0;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const doc = await parsePdf(bytes, makeContext('long-200.pdf', 'fast'));
    clearInterval(timer);
    console.log(
      JSON.stringify({
        pages: doc.metadata.numPages,
        seconds: (performance.now() - started) / 1000,
        startRssMb: startRss / 2 ** 20,
        sampledPeakRssMb: peak / 2 ** 20,
        maxRssMb: process.resourceUsage().maxRSS / 1024,
      }),
    );
  }
}

/** Compiles the benchmark (and through it the parser) to plain JavaScript that `node` runs as is. */
function compile(): string {
  const out = join(workDir, 'js');
  rmSync(out, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const args = [
    ...['--outDir', out, '--rootDir', root, '--module', 'nodenext', '--moduleResolution', 'nodenext'],
    ...[
      '--target',
      'es2023',
      '--skipLibCheck',
      '--esModuleInterop',
      '--types',
      'node',
      '--sourceMap',
      'false',
    ],
    join(root, 'bench/parsing/pdf.bench.ts'),
  ];
  const run = spawnSync(process.execPath, [tsc, ...args], { stdio: 'inherit' });
  if (run.status !== 0) throw new Error('tsc failed');
  // Let the compiled files resolve pdfjs-dist, sharp… from the project.
  symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
  return join(out, 'bench/parsing/pdf.bench.js');
}

function ensure200PagePdf(): string | null {
  const dir = join(workDir, 'long-200');
  const pdf = join(dir, 'long.pdf');
  if (existsSync(pdf)) return pdf;
  const which = spawnSync('which', ['soffice']);
  if (which.status !== 0) return null;
  const script = join(root, 'scripts/fixtures/pdf.ts');
  const made = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `import(${JSON.stringify(script)}).then((m) => m.buildLongPdf(${CHAPTERS_FOR_200_PAGES}, ${JSON.stringify(dir)}))`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], cwd: root, encoding: 'utf8' },
  );
  if (made.status !== 0) console.error(made.stderr);
  return made.status === 0 && existsSync(pdf) ? pdf : null;
}

function runChild(compiled: string, mode: string, file: string): Record<string, unknown> {
  const pin = spawnSync('which', ['taskset']).status === 0 ? ['taskset', '-c', '0'] : [];
  const [command = process.execPath, ...rest] = [...pin, process.execPath, compiled, '--child', mode, file];
  const run = spawnSync(command, rest, {
    encoding: 'utf8',
    env: { ...process.env, UV_THREADPOOL_SIZE: '1' },
  });
  if (run.status !== 0) throw new Error(`${mode} failed: ${run.stderr}`);
  const line = run.stdout.trim().split('\n').pop() ?? '{}';
  return JSON.parse(line) as Record<string, unknown>;
}

async function main(): Promise<void> {
  mkdirSync(workDir, { recursive: true });
  const long = join(root, 'test/fixtures/documents/pdf/long.pdf');
  const compiled = compile();
  const round = (value: unknown): string => (typeof value === 'number' ? value.toFixed(1) : String(value));

  const throughput = runChild(compiled, 'throughput', long) as Record<string, Record<string, number>>;
  for (const mode of ['fast', 'accurate']) {
    const figures = throughput[mode] ?? {};
    console.log(
      `parsePdf long.pdf (${figures.pages} pages, tableMode ${mode}): median ${round(figures.medianMs)} ms ` +
        `over ${RUNS} runs = ${round(figures.pagesPerSecond)} pages/s (one core)`,
    );
  }

  const first = runChild(compiled, 'first-page', long);
  console.log(
    `parsePdfIncremental long.pdf: first page after ${round(first.warmFirstPageMs)} ms warm ` +
      `(metadata ${round(first.warmMetadataMs)} ms; median of ${RUNS}), ${round(first.coldMs)} ms cold (pdf.js loading included)`,
  );

  const big = ensure200PagePdf();
  if (big === null) {
    console.log('peak RSS: skipped (LibreOffice is needed once to generate the 200-page PDF)');
    return;
  }
  const rss = runChild(compiled, 'rss', big);
  console.log(
    `peak RSS parsing ${rss.pages} pages in a fresh process: ${round(rss.maxRssMb)} MB ` +
      `(sampled ${round(rss.sampledPeakRssMb)} MB; ${round(rss.startRssMb)} MB at start; ${round(rss.seconds)} s including pdf.js loading)`,
  );
}

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) {
  await child(process.argv[childAt + 1] ?? '', process.argv[childAt + 2] ?? '');
} else {
  await main();
}
