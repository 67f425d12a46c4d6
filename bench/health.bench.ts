/**
 * `GET /api/v1/health` throughput: the compiled server in one process, autocannon (64 connections,
 * 10 s) in another, on a 2-core machine (so the two share the cores). Request logging stays on at
 * the default level (info), written to /dev/null.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, machine, median, report, serveCompiled } from './support.js';

const PORT = 18_900 + Math.floor(Math.random() * 90);
const dataDir = mkdtempSync(join(tmpdir(), 'bench-health-'));
const autocannon = join(createRequire(import.meta.url).resolve('autocannon'), '..', 'autocannon.js');

console.log(`machine: ${machine()}`);
build();
const server = await serveCompiled(PORT, { DATA_DIR: dataDir });

const rates: number[] = [];
const latencies: number[] = [];
for (let run = 0; run < 3; run += 1) {
  const result = spawnSync(
    process.execPath,
    [autocannon, '-c', '64', '-d', '10', '--json', `http://127.0.0.1:${PORT}/api/v1/health`],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const parsed = JSON.parse(result.stdout) as {
    requests: { average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  };
  if (parsed.non2xx > 0 || parsed.errors > 0)
    throw new Error(`failures during the run: ${parsed.non2xx} non-2xx, ${parsed.errors} errors`);
  rates.push(parsed.requests.average);
  latencies.push(parsed.latency.p50);
  console.log(
    `run ${run + 1}: ${Math.round(parsed.requests.average)} req/s, latency p50 ${parsed.latency.p50} ms, p99 ${parsed.latency.p99} ms`,
  );
}
report('GET /api/v1/health, autocannon -c 64 -d 10 (median of 3)', median(rates), 'req/s', '>= 5,000');
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
