/**
 * `GET /api/v1/health` throughput against a bare Koa app answering the same JSON: both servers in
 * processes of their own, autocannon (64 connections, 10 s) in a third, on the same cores. Runs
 * alternate (reference, Archivist, reference, …) so that both meet the same machine, and the figure
 * that matters is the ratio of the medians. Archivist runs as `npm start` runs it, logging at info
 * to /dev/null (health probes log at debug; every request keeps its correlation id).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, cpuSeconds, machine, median, report, serveCompiled } from './support.js';

const PORT = 18_900 + Math.floor(Math.random() * 90);
const REFERENCE_PORT = PORT + 100;
const RUNS = Number(process.env['HEALTH_RUNS'] ?? 3);
const SECONDS = process.env['HEALTH_SECONDS'] ?? '10';
const dataDir = mkdtempSync(join(tmpdir(), 'bench-health-'));
const autocannon = join(createRequire(import.meta.url).resolve('autocannon'), '..', 'autocannon.js');

function load(port: number, pid: number): { rate: number; p50: number; p99: number; cpuUs: number } {
  const cpuBefore = cpuSeconds(pid);
  const result = spawnSync(
    process.execPath,
    [autocannon, '-c', '64', '-d', SECONDS, '--json', `http://127.0.0.1:${port}/api/v1/health`],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const parsed = JSON.parse(result.stdout) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  };
  if (parsed.non2xx > 0 || parsed.errors > 0)
    throw new Error(`failures during the run: ${parsed.non2xx} non-2xx, ${parsed.errors} errors`);
  const cpuUs = ((cpuSeconds(pid) - cpuBefore) * 1e6) / parsed.requests.total;
  return { rate: parsed.requests.average, p50: parsed.latency.p50, p99: parsed.latency.p99, cpuUs };
}

console.log(`machine: ${machine()}`);
build();
const server = await serveCompiled(PORT, { DATA_DIR: dataDir, LOG_LEVEL: 'info' });
const reference = spawn(
  process.execPath,
  ['--import', 'tsx', join(import.meta.dirname, 'reference', 'bareKoaHealth.ts'), String(REFERENCE_PORT)],
  { stdio: 'ignore' },
);
for (;;) {
  const up = await fetch(`http://127.0.0.1:${REFERENCE_PORT}/api/v1/health`).then(
    (r) => r.ok,
    () => false,
  );
  if (up) break;
  await new Promise((resolve) => setTimeout(resolve, 20));
}

const ours: number[] = [];
const bare: number[] = [];
const oursCpu: number[] = [];
const bareCpu: number[] = [];
try {
  for (let run = 1; run <= RUNS; run += 1) {
    const b = load(REFERENCE_PORT, reference.pid!);
    const a = load(PORT, server.process.pid!);
    bare.push(b.rate);
    ours.push(a.rate);
    bareCpu.push(b.cpuUs);
    oursCpu.push(a.cpuUs);
    console.log(
      `run ${run}: bare Koa ${Math.round(b.rate)} req/s (p50 ${b.p50} ms, ${b.cpuUs.toFixed(1)} µs CPU/req) · Archivist ${Math.round(a.rate)} req/s (p50 ${a.p50} ms, p99 ${a.p99} ms, ${a.cpuUs.toFixed(1)} µs CPU/req) · ratio ${(a.rate / b.rate).toFixed(2)}`,
    );
  }
} finally {
  reference.kill();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
report(`bare Koa, GET /api/v1/health (median of ${RUNS})`, median(bare), 'req/s');
report(`Archivist, GET /api/v1/health (median of ${RUNS})`, median(ours), 'req/s');
report('Archivist / bare Koa, throughput', median(ours) / median(bare), '', '>= 0.70');
// Server CPU per request: what capacity is made of, and far steadier than throughput on a busy machine.
report('bare Koa CPU per request (median)', median(bareCpu), 'µs');
report('Archivist CPU per request (median)', median(oursCpu), 'µs');
report('bare Koa / Archivist, CPU per request', median(bareCpu) / median(oursCpu), '', '>= 0.70');
