/**
 * Issue 26's memory goal over the whole ingestion, measured on the compiled server as `npm start`
 * runs it (default configuration): `POST /api/v1/upload` of a ~4.8 MB DOCX (~27 MB of XML, a few
 * thousand chunks) that is accepted and goes through every stage — parse, chunk, claim, embed, index
 * and the projections after it — alone and three different ones at once. The goal: peak RSS at most
 * idle RSS + 4 × the bytes in flight + 300 MB, and RSS back within 100 MB of baseline 10 s after the
 * last answer. Both baselines are shown: the server's idle RSS before the uploads, and a fresh
 * server's on the same data (the stored documents' indexes are memory a server holding them needs;
 * what is above that is what the ingestion left). The second decides. Each scenario gets a fresh server and data folder; each runs RUNS times (default 3)
 * and reports medians, because these machines are shared and noisy.
 *
 *   npm run bench -- ingestMemory          RUNS=1 npm run bench -- ingestMemory
 *   SERVER_ENV='{"INGEST_MEMORY_BUDGET_MB":"512"}' npm run bench -- ingestMemory
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestInputs, type BenchInput } from './memory/inputs.js';
import { postFile } from './memory/postFile.js';
import { rssMb, settledRssMb, watchPeak } from './memory/processMemory.js';
import { build, machine, median, serveCompiled } from './support.js';

const RUNS = Number(process.env['RUNS'] ?? 3);
const SERVER_ENV = JSON.parse(process.env['SERVER_ENV'] ?? '{}') as Record<string, string>;
const SETTLE_MS = 10_000;
const MB = 1024 * 1024;

interface Run {
  idleMb: number;
  peakMb: number;
  afterMb: number;
  /** A fresh server's idle RSS on the same data: what holding the stored documents costs. */
  dataIdleMb: number;
  ms: number;
  chunks: number;
  statuses: number[];
  detail: string;
}

const serve = (port: number, dataDir: string) =>
  serveCompiled(port, { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...SERVER_ENV });

/** A server's RSS once its workers have loaded the parsers and models after start. */
async function idleRssMb(pid: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  return settledRssMb(pid);
}

/**
 * One fresh server: idle, then `inputs` uploaded at once, then 10 s of rest; then the same data
 * served by a fresh server, whose idle RSS is what the stored documents themselves hold (the vector
 * and text indexes grow with them).
 */
async function run(inputs: BenchInput[]): Promise<Run> {
  const port = 19_800 + Math.floor(Math.random() * 400);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-ingest-memory-'));
  let server = await serve(port, dataDir);
  const pid = server.process.pid!;
  try {
    const idleMb = await idleRssMb(pid);
    const files = inputs.map((input) => ({ input, bytes: readFileSync(input.path) }));
    const watch = watchPeak(pid);
    const started = performance.now();
    const answers = await Promise.all(
      files.map(({ input, bytes }) => postFile(port, '/api/v1/upload', input.fileName, bytes)),
    );
    const ms = performance.now() - started;
    // What follows the answer (the vector index's projector, buffers given back) counts too.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const peakMb = watch.stop();
    const afterMb = rssMb(pid);
    await server.stop();
    server = await serve(port, dataDir);
    const dataIdleMb = await idleRssMb(server.process.pid!);
    const chunks = answers.reduce(
      (sum, answer) => sum + Number((answer.body as { chunks_added?: number } | null)?.chunks_added ?? 0),
      0,
    );
    return {
      idleMb,
      peakMb,
      afterMb,
      dataIdleMb,
      ms,
      chunks,
      statuses: answers.map((answer) => answer.status),
      detail:
        answers.find((answer) => answer.detail)?.detail ??
        answers.map((answer) => (answer.body as { error?: string } | null)?.error).find(Boolean) ??
        '',
    };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const inputs = await ingestInputs(3);
console.log(`machine: ${machine()}`);
if (Object.keys(SERVER_ENV).length > 0) console.log(`server environment: ${JSON.stringify(SERVER_ENV)}`);
console.log(
  `inputs: ${inputs.map((input) => `${input.fileName} ${(input.bytes / MB).toFixed(2)} MB`).join(', ')}`,
);
build();
let failures = 0;
console.log(
  '\n| uploads at once | peak growth over idle (median) | limit 4×in+300 | RSS 10 s after, over idle (median) | RSS 10 s after, over a fresh server on the same data (median) | wall time (median) | chunks | result |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const copies of [1, 3]) {
  const runs: Run[] = [];
  for (let attempt = 0; attempt < RUNS; attempt += 1) runs.push(await run(inputs.slice(0, copies)));
  const bytesInFlight = inputs.slice(0, copies).reduce((sum, input) => sum + input.bytes, 0);
  const limitMb = (4 * bytesInFlight) / MB + 300;
  const growth = runs.map((each) => each.peakMb - each.idleMb);
  const after = runs.map((each) => each.afterMb - each.idleMb);
  const left = runs.map((each) => each.afterMb - each.dataIdleMb);
  const statuses = runs.flatMap((each) => each.statuses);
  const accepted = statuses.every((status) => status === 200) && runs.every((each) => each.chunks > 0);
  // Returned means within 100 MB of what a server holding the same documents needs.
  const pass = accepted && Math.max(...growth) <= limitMb && Math.max(...left) <= 100;
  if (!pass) failures += 1;
  const notes = accepted
    ? ''
    : ` (statuses ${statuses.join(',')}: ${runs.find((each) => each.detail)?.detail ?? ''})`;
  console.log(
    `| ${copies} | ${Math.round(median(growth))} MB (idle ${Math.round(median(runs.map((each) => each.idleMb)))} MB; worst ${Math.round(Math.max(...growth))}) | ${Math.round(limitMb)} MB | ${Math.round(median(after))} MB (worst ${Math.round(Math.max(...after))}) | ${Math.round(median(left))} MB (worst ${Math.round(Math.max(...left))}; that server ${Math.round(median(runs.map((each) => each.dataIdleMb - each.idleMb)))} MB over idle) | ${(median(runs.map((each) => each.ms)) / 1000).toFixed(1)} s | ${median(runs.map((each) => each.chunks))} | ${pass ? 'pass' : 'FAIL'}${notes} |`,
  );
}
if (failures > 0) {
  console.log(`\n${failures} scenario(s) over the goal`);
  process.exitCode = 1;
}
