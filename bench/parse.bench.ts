/**
 * Document understanding end to end, as the product runs it (compiled code, plain node):
 * - parse + chunk rates on one core (the pipeline every /parse* endpoint runs, in one thread):
 *   54-page text PDF, 50-page DOCX, 50,000-row XLSX;
 * - `/parse/sections/incremental`: time from the end of the upload to the first chunk on the wire,
 *   for the 54-page PDF, against a running server with warm parse workers.
 * The XLSX is made once with exceljs and kept in the temp folder: the benchmark needs nothing beyond
 * `npm ci`.
 *
 *   npm run bench -- parse
 */
import { spawnSync } from 'node:child_process';
import ExcelJS from 'exceljs';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as ContextModule from '../src/parsing/context.js';
import type * as DescriberModule from '../src/parsing/describe/localDescriber.js';
import type * as JobModule from '../src/parsing/job.js';
import type * as OcrModule from '../src/parsing/ocr/tesseractOcr.js';
import type * as SummarizerModule from '../src/parsing/summarize/extractive.js';
import { build, machine, median, report, serveCompiled } from './support.js';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const fixtures = join(root, 'test', 'fixtures', 'documents');
const cacheDir = join(tmpdir(), 'archivist-bench-parse');

/**
 * The 50,000-row workbook, written with exceljs (a dev dependency, so `npm ci` is all it needs) as a
 * streaming writer: typed cells as a spreadsheet application saves them — numbers, dates with a date
 * format, booleans, shared strings — and kept in the temp folder between runs.
 */
async function workbook50k(): Promise<string> {
  const path = join(cacheDir, 'rows50k-exceljs.xlsx');
  if (existsSync(path)) return path;
  mkdirSync(cacheDir, { recursive: true });
  const partial = `${path}.${process.pid}.tmp`;
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: partial, useSharedStrings: true });
  const sheet = book.addWorksheet('rows50k');
  sheet
    .addRow(['id', 'date', 'region', 'station', 'reading', 'unit', 'valid', 'operator', 'batch', 'notes'])
    .commit();
  for (let i = 0; i < 50_000; i += 1) {
    const row = sheet.addRow([
      i + 1,
      new Date(Date.UTC(2024, i % 12, (i % 28) + 1)),
      ['North', 'Coast', 'Valley'][i % 3],
      `ST-${i % 97}`,
      (i * 7.31) % 100,
      'mm',
      i % 5 !== 0,
      `op${i % 13}`,
      `B${Math.floor(i / 500)}`,
      `checked ${i % 4} times`,
    ]);
    row.getCell(2).numFmt = 'yyyy-mm-dd';
    row.commit();
  }
  sheet.commit();
  await book.commit();
  renameSync(partial, path);
  return path;
}

/** Medians of one document's runs: wall time, and the process's CPU time (what other work on a shared core does not inflate). */
interface Rates {
  ms: number;
  cpuMs: number;
  pages: number;
  chunks: number;
}

/** Runs in a child process on one core: median parse + chunk time per document. */
async function childRates(): Promise<void> {
  const dist = (path: string) => import(pathToFileURL(join(root, 'dist', 'src', path)).href);
  const { runParseJob } = (await dist('parsing/job.js')) as typeof JobModule;
  const { DEFAULT_PARSE_LIMITS } = (await dist('parsing/context.js')) as typeof ContextModule;
  const { createTesseractOcr } = (await dist('parsing/ocr/tesseractOcr.js')) as typeof OcrModule;
  const { createLocalDescriber } = (await dist(
    'parsing/describe/localDescriber.js',
  )) as typeof DescriberModule;
  const { createExtractiveSummarizer } = (await dist(
    'parsing/summarize/extractive.js',
  )) as typeof SummarizerModule;
  const ocr = createTesseractOcr({ workers: 1 });
  const services = {
    ocr,
    describer: createLocalDescriber({ ocr }),
    summarizer: createExtractiveSummarizer(),
  };
  const documents = JSON.parse(process.argv[3]!) as Array<{ name: string; path: string; runs: number }>;
  const results: Record<string, Rates> = {};
  for (const document of documents) {
    const bytes = new Uint8Array(readFileSync(document.path));
    const times: number[] = [];
    const cpuTimes: number[] = [];
    let pages = 0;
    let chunks = 0;
    for (let run = 0; run < document.runs + 1; run += 1) {
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      for await (const event of runParseJob(
        {
          kind: 'sections',
          fileName: document.name,
          bytes,
          options: { enableOcr: false, enableImageDescription: true, tableMode: 'fast' },
          cleaning: { removeUrls: true, normalizeArabic: true },
          limits: DEFAULT_PARSE_LIMITS,
          chunking: { mode: 'auto', targetWords: 500, maxWords: 1500 },
          includeFullText: false,
        },
        services,
        new AbortController().signal,
      )) {
        if (event.type === 'result' && 'chunks' in event.result) {
          pages = event.result.document.metadata.numPages;
          chunks = event.result.chunks.length;
        }
      }
      if (run > 0) {
        // The first run warms the modules.
        times.push(performance.now() - started);
        const cpu = process.cpuUsage(cpuStarted);
        cpuTimes.push((cpu.user + cpu.system) / 1000);
      }
    }
    results[document.name] = { ms: median(times), cpuMs: median(cpuTimes), pages, chunks };
  }
  await ocr.close();
  process.stdout.write(JSON.stringify(results));
}

async function firstChunkLatencies(
  port: number,
  bytes: Buffer,
  runs: number,
  pauseMs: number,
): Promise<number[]> {
  const boundary = 'archivistbench';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="long.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = Buffer.concat([head, bytes, tail]);
  const latencies: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    latencies.push(
      await new Promise<number>((resolvePromise, reject) => {
        let uploaded = 0;
        const req = request({
          host: '127.0.0.1',
          port,
          path: '/api/v1/parse/sections/incremental',
          method: 'POST',
          headers: {
            'Content-Type': `multipart/form-data; boundary=${boundary}`,
            'Content-Length': body.length,
          },
        });
        req.on('response', (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => {
            text += chunk.toString('utf8');
            if (uploaded && text.includes('"type":"chunk"')) {
              const latency = performance.now() - uploaded;
              uploaded = 0;
              req.destroy();
              resolvePromise(latency);
            }
          });
        });
        req.on('error', (error) => (uploaded === 0 ? undefined : reject(error)));
        req.end(body, () => (uploaded = performance.now()));
      }),
    );
    await new Promise((resolveWait) => setTimeout(resolveWait, pauseMs));
  }
  return latencies;
}

if (process.argv[2] === 'child') {
  await childRates();
} else {
  console.log(`machine: ${machine()}`);
  console.log(
    `load average (1, 5, 15 min): ${loadavg()
      .map((load) => load.toFixed(2))
      .join(', ')}`,
  );
  build();
  const documents = [
    { name: 'long.pdf', path: join(fixtures, 'pdf', 'long.pdf'), runs: 7 },
    { name: 'long.docx', path: join(fixtures, 'office', 'long.docx'), runs: 7 },
    { name: 'rows50k.xlsx', path: await workbook50k(), runs: 5 },
  ];
  const taskset = spawnSync('taskset', ['--version']).status === 0;
  const command = taskset ? 'taskset' : process.execPath;
  const args = [
    ...(taskset ? ['-c', '0', process.execPath] : []),
    '--import',
    'tsx',
    fileURLToPath(import.meta.url),
    'child',
    JSON.stringify(documents),
  ];
  const output = spawnSync(command, args, {
    encoding: 'utf8',
    env: { ...process.env, UV_THREADPOOL_SIZE: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });
  if (output.status !== 0) throw new Error(output.stderr);
  const rates = JSON.parse(output.stdout) as Record<string, Rates>;
  const pdf = rates['long.pdf']!;
  report(
    `text PDF ${pdf.pages} pages, parse + chunk, one core (median of 7)`,
    (pdf.pages / pdf.ms) * 1000,
    'pages/s',
    '>= 120 pages/s',
  );
  report('  the same per CPU-second of the process', (pdf.pages / pdf.cpuMs) * 1000, 'pages/s');
  const docx = rates['long.docx']!;
  report(`DOCX ${docx.pages} pages, parse + chunk, one core (median of 7)`, docx.ms, 'ms', '<= 1,000 ms');
  const xlsx = rates['rows50k.xlsx']!;
  report(
    `XLSX 50,000 rows x 10 columns, parse + chunk (${xlsx.chunks} chunks)`,
    xlsx.ms,
    'ms',
    '<= 3,000 ms',
  );

  const port = 19_100 + Math.floor(Math.random() * 200);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-parse-'));
  const server = await serveCompiled(port, { DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  await new Promise((resolveWait) => setTimeout(resolveWait, 1_500)); // parse workers warm up after start
  const latencies = await firstChunkLatencies(
    port,
    readFileSync(join(fixtures, 'pdf', 'long.pdf')),
    9,
    Number(process.env['PAUSE_MS'] ?? 300),
  );
  report(
    'incremental: first chunk of a 54-page PDF after the upload, first request after start',
    latencies[0]!,
    'ms',
    '<= 150 ms',
  );
  report('incremental: the same, warm (median of the next 8)', median(latencies.slice(1)), 'ms', '<= 50 ms');
  console.log(`runs: ${latencies.map((latency) => Math.round(latency)).join(', ')} ms`);
  console.log(
    `load average at the end (1, 5, 15 min): ${loadavg()
      .map((load) => load.toFixed(2))
      .join(', ')}`,
  );
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
