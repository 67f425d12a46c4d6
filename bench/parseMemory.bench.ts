/**
 * Issue 9's memory goal, measured on the compiled server as `npm start` runs it (default
 * configuration): peak RSS and wall time of `POST /api/v1/parse` for a ~47 MB DOCX compressing
 * ~5.7:1, a 50 MB CSV on one line, a ~50 MB XLSX and a 200-page PDF, each alone and three at
 * once, and RSS a few seconds after. The goal: peak RSS at most idle RSS + 4 × the bytes in
 * flight + 300 MB; an input over budget refused with a 4xx within 2 s of its upload; RSS back near
 * idle (within 100 MB) 10 s after (a recycled worker's replacement takes a few seconds to load its
 * parsers on a busy machine). Each input gets a fresh server; each scenario runs RUNS times
 * (default 3) and reports medians, because these machines are shared and noisy.
 *
 *   npm run bench -- parseMemory            RUNS=1 npm run bench -- parseMemory
 *   INPUTS=csv,pdf npm run bench -- parseMemory                       (docx, csv, xlsx, pdf)
 *   SERVER_ENV='{"MALLOC_ARENA_MAX":"2"}' npm run bench -- parseMemory   (extra server environment)
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchInputs, type BenchInput } from './memory/inputs.js';
import { postFile } from './memory/postFile.js';
import { rssMb, settledRssMb, watchPeak } from './memory/processMemory.js';
import { build, median, serveCompiled } from './support.js';

const RUNS = Number(process.env['RUNS'] ?? 3);
const SERVER_ENV = JSON.parse(process.env['SERVER_ENV'] ?? '{}') as Record<string, string>;
const ONLY = process.env['INPUTS']?.split(',') ?? null;
const SETTLE_MS = 10_000;
const MB = 1024 * 1024;

interface Attempt {
  ms: number;
  /** The slowest answer's time from the end of its upload. */
  afterUploadMs: number;
  peakMb: number;
  statuses: number[];
  detail: string;
}

interface Scenario {
  input: BenchInput;
  copies: number;
  idleMb: number;
  attempts: Attempt[];
  afterMb: number;
}

function machineLine(): string {
  const cpu = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
  return `nproc ${execSync('nproc').toString().trim()}, ${cpu}, Node ${process.version}`;
}

async function attempt(
  port: number,
  pid: number,
  input: BenchInput,
  bytes: Buffer,
  copies: number,
): Promise<Attempt> {
  const watch = watchPeak(pid);
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: copies }, () => postFile(port, '/api/v1/parse', input.fileName, bytes)),
  );
  const ms = performance.now() - started;
  const peakMb = watch.stop();
  return {
    ms,
    peakMb,
    afterUploadMs: Math.max(...results.map((result) => result.afterUploadMs)),
    statuses: results.map((result) => result.status),
    detail: results.find((result) => result.detail)?.detail ?? '',
  };
}

async function measureInput(input: BenchInput): Promise<Scenario[]> {
  const port = 19_400 + Math.floor(Math.random() * 400);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-parse-memory-'));
  const server = await serveCompiled(port, { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...SERVER_ENV });
  const pid = server.process.pid!;
  try {
    // The workers load the parsers after start: idle is once that has settled.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const idleMb = await settledRssMb(pid);
    const bytes = readFileSync(input.path);
    const scenarios: Scenario[] = [];
    for (const copies of [1, 3]) {
      const attempts: Attempt[] = [];
      for (let run = 0; run < RUNS; run += 1) attempts.push(await attempt(port, pid, input, bytes, copies));
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      scenarios.push({ input, copies, idleMb, attempts, afterMb: rssMb(pid) });
    }
    return scenarios;
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function verdict(scenario: Scenario): {
  limitMb: number;
  growthMb: number;
  ms: number;
  pass: boolean;
  notes: string[];
} {
  const { input, copies, idleMb, attempts, afterMb } = scenario;
  const limitMb = (4 * copies * input.bytes) / MB + 300;
  const growthMb = median(attempts.map((a) => a.peakMb - idleMb));
  const worstGrowth = Math.max(...attempts.map((a) => a.peakMb - idleMb));
  const ms = median(attempts.map((a) => a.ms));
  const statuses = attempts.flatMap((a) => a.statuses);
  const refused = statuses.every((status) => status >= 400 && status < 500);
  const notes: string[] = [];
  let pass = worstGrowth <= limitMb;
  if (statuses.some((status) => status >= 500)) {
    pass = false;
    notes.push(`5xx: ${statuses.join(',')}`);
  }
  if (refused) {
    const slowest = Math.max(...attempts.map((a) => a.ms));
    const afterUpload = Math.max(...attempts.map((a) => a.afterUploadMs));
    notes.push(
      `refused ${statuses[0]} ≤ ${Math.round(afterUpload)} ms after the upload (≤ ${Math.round(slowest)} ms in all): ${attempts[0]?.detail.slice(0, 100)}…`,
    );
    if (afterUpload > 2_000) pass = false;
  } else {
    notes.push(`statuses ${[...new Set(statuses)].join(',')}`);
  }
  if (afterMb - idleMb > 100) {
    pass = false;
    notes.push(`RSS ${Math.round(afterMb - idleMb)} MB above idle ${SETTLE_MS / 1000} s after`);
  }
  return { limitMb, growthMb, ms, pass, notes };
}

const inputs = (await benchInputs()).filter((input) => !ONLY || ONLY.includes(input.name));
console.log(`machine: ${machineLine()}`);
if (Object.keys(SERVER_ENV).length > 0) console.log(`server environment: ${JSON.stringify(SERVER_ENV)}`);
console.log(
  `inputs: ${inputs.map((input) => `${input.fileName} ${(input.bytes / MB).toFixed(1)} MB`).join(', ')}`,
);
build();
let failures = 0;
console.log(
  '\n| input | at once | peak growth (median) | limit 4×in+300 | wall time (median) | RSS 10 s after | result | notes |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const input of inputs) {
  for (const scenario of await measureInput(input)) {
    const { limitMb, growthMb, ms, pass, notes } = verdict(scenario);
    if (!pass) failures += 1;
    const after = Math.round(scenario.afterMb - scenario.idleMb);
    console.log(
      `| ${input.fileName} (${(input.bytes / MB).toFixed(1)} MB) | ${scenario.copies} | ${Math.round(growthMb)} MB over idle ${Math.round(scenario.idleMb)} MB | ${Math.round(limitMb)} MB | ${(ms / 1000).toFixed(2)} s | ${after >= 0 ? '+' : ''}${after} MB | ${pass ? 'pass' : 'FAIL'} | ${notes.join('; ')} |`,
    );
  }
}
console.log(
  `\n${failures === 0 ? 'all scenarios pass' : `${failures} scenario(s) fail`} (runs per scenario: ${RUNS})`,
);
process.exit(failures === 0 ? 0 : 1);
