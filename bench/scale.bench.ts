/**
 * Scaling out on the distributed profile (scripts/cluster.sh: PostgreSQL, NATS, FerretDB, Milvus
 * Lite; two API processes, two workers, one projector), on this machine's cores:
 * - ingestion throughput with 1 and 2 worker processes: READMEs npm installed, uploaded with
 *   `/upload/async` through both APIs at once, timed until every task has completed;
 * - `/search` throughput with 1 and 2 API processes: autocannon (16 connections) on one API, then
 *   8 connections on each of the two at once;
 * - beside it, the same 1-versus-2 comparison for a bare Koa app answering a fixed JSON body: what
 *   a second process can give on these cores at all, against which the search ratio is read.
 * Rounds alternate (1, 2, 1, 2…) and each figure is the median of SCALE_ROUNDS (default 3).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/freePort.js';
import { clusterUnavailable, startCluster, type ClusterHandle } from '../test/support/clusterControl.js';
import { build, machine, median } from './support.js';
import { readmes, type Input } from './registryDocuments.js';

const ROUNDS = Number(process.env['SCALE_ROUNDS'] ?? 3);
/** Markdown per ingestion round: the read models grow by every round (FerretDB scans grow with them). */
const ROUND_BYTES = Number(process.env['SCALE_ROUND_BYTES'] ?? 700_000);
const SECONDS = process.env['SCALE_SECONDS'] ?? '10';
const autocannon = join(createRequire(import.meta.url).resolve('autocannon'), '..', 'autocannon.js');
const bareKoa = join(import.meta.dirname, 'reference', 'bareKoaJson.ts');

console.log(`machine: ${machine()}`);
const missing = clusterUnavailable();
if (missing) {
  console.log(`skipped: needs the distributed engines (${missing}); bash .ci/provision installs them`);
  process.exit(0);
}
build();
const dir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
const cluster: ClusterHandle = await startCluster(dir, { LOG_LEVEL: 'warn' });
const headers = { 'X-API-Key': cluster.apiKey };

/**
 * Successful (2xx) requests per second autocannon measured, summed over the targets run at once,
 * and how many answers were not 2xx (a read store that cannot keep up answers 503).
 */
async function hammer(
  targets: ReadonlyArray<{ url: string; connections: number; body?: string }>,
): Promise<{ rate: number; failed: number }> {
  const runs = targets.map(
    (target) =>
      new Promise<{ rate: number; failed: number }>((resolve, reject) => {
        const args = [autocannon, '-c', String(target.connections), '-d', SECONDS, '--json'];
        if (target.body)
          args.push(
            '-m',
            'POST',
            '-H',
            'Content-Type=application/json',
            '-H',
            `X-API-Key=${cluster.apiKey}`,
            '-b',
            target.body,
          );
        const child = spawn(process.execPath, [...args, target.url], { stdio: ['ignore', 'pipe', 'ignore'] });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
        child.once('close', () => {
          try {
            const result = JSON.parse(out) as { '2xx': number; non2xx: number; duration: number };
            resolve({ rate: result['2xx'] / result.duration, failed: result.non2xx });
          } catch (error) {
            reject(error as Error);
          }
        });
      }),
  );
  const results = await Promise.all(runs);
  return {
    rate: results.reduce((sum, result) => sum + result.rate, 0),
    failed: results.reduce((sum, result) => sum + result.failed, 0),
  };
}

/**
 * Distinct READMEs for every round (one round's content again would be a duplicate, skipped at once):
 * consecutive slices of ~ROUND_BYTES of the registry's READMEs.
 */
const slices: Input[][] = (() => {
  const all = readmes(ROUND_BYTES * ROUNDS * 2);
  const out: Input[][] = [[]];
  let bytes = 0;
  for (const input of all) {
    if (bytes >= ROUND_BYTES) {
      out.push([]);
      bytes = 0;
    }
    out.at(-1)!.push(input);
    bytes += input.bytes.length;
  }
  return out;
})();
if (slices.length < ROUNDS * 2)
  throw new Error(`not enough READMEs for ${ROUNDS * 2} rounds of ${ROUND_BYTES} bytes`);

/** Uploads every input through both APIs, and waits for their tasks: documents/s and MB/s. */
async function ingest(round: string, inputs: readonly Input[]): Promise<{ docs: number; megabytes: number }> {
  const started = performance.now();
  const tasks = await Promise.all(
    inputs.map(async (input, i) => {
      const form = new FormData();
      form.append('file', new Blob([input.bytes]), input.name);
      form.append('section', round);
      const response = await fetch(`${cluster.apiUrls[i % 2]}/api/v1/upload/async`, {
        method: 'POST',
        headers,
        body: form,
      });
      if (response.status !== 202)
        throw new Error(`upload answered ${response.status}: ${await response.text()}`);
      return String(((await response.json()) as { task_id: string }).task_id);
    }),
  );
  for (;;) {
    const open = await fetch(`${cluster.apiUrls[0]}/api/v1/tasks?status=pending&limit=1`, { headers });
    const running = await fetch(`${cluster.apiUrls[0]}/api/v1/tasks?status=running&limit=1`, { headers });
    const counts = [(await open.json()) as { total: number }, (await running.json()) as { total: number }];
    if (counts.every((count) => count.total === 0)) break;
    // Not more often: each look is a query of the read store, whose load the figure must not include.
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const seconds = (performance.now() - started) / 1000;
  const bytes = inputs.reduce((sum, input) => sum + input.bytes.length, 0);
  if (tasks.length !== inputs.length) throw new Error('not every upload was accepted');
  return { docs: inputs.length / seconds, megabytes: bytes / 1e6 / seconds };
}

try {
  // Ingestion: worker-2 stopped for the one-worker rounds.
  const ingestion: Record<'1' | '2', Array<{ docs: number; megabytes: number }>> = { '1': [], '2': [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    await cluster.stop('worker-2');
    ingestion['1'].push(await ingest(`one-${round}`, slices[2 * round]!));
    await cluster.start('worker-2');
    // The restarted worker says it is alive before it takes jobs: wait for readiness to count it.
    for (;;) {
      const ready = (await (await fetch(`${cluster.apiUrls[0]}/api/v1/health/ready`)).json()) as {
        components: Array<{ name: string; reason: string | null }>;
      };
      if (ready.components.find((c) => c.name === 'workers')?.reason === '2 worker processes alive') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    ingestion['2'].push(await ingest(`two-${round}`, slices[2 * round + 1]!));
  }
  const ingestMedian = (workers: '1' | '2') => ({
    docs: median(ingestion[workers].map((r) => r.docs)),
    megabytes: median(ingestion[workers].map((r) => r.megabytes)),
  });
  const [one, two] = [ingestMedian('1'), ingestMedian('2')];
  console.log(
    `ingestion, ~${Math.round(slices[0]!.length)} READMEs (${(ROUND_BYTES / 1e6).toFixed(1)} MB, distinct in every round) per round, medians of ${ROUNDS}:`,
  );
  console.log(`  1 worker : ${one.docs.toFixed(1)} documents/s, ${one.megabytes.toFixed(2)} MB/s`);
  console.log(
    `  2 workers: ${two.docs.toFixed(1)} documents/s, ${two.megabytes.toFixed(2)} MB/s (×${(two.docs / one.docs).toFixed(2)})`,
  );

  // Search: one API, then both; the bare Koa reference the same way.
  const body = JSON.stringify({ query: 'markdown parser tokens', top_k: 5 });
  const [a, b] = cluster.apiUrls.map((url) => `${url}/api/v1/search`);
  const koaPorts = [await freePort(), await freePort()];
  const koa = koaPorts.map((port) =>
    spawn(process.execPath, ['--import', 'tsx', bareKoa, String(port)], { stdio: 'ignore' }),
  );
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const search: Record<'1' | '2', Array<{ rate: number; failed: number }>> = { '1': [], '2': [] };
  const reference: Record<'1' | '2', Array<{ rate: number; failed: number }>> = { '1': [], '2': [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    search['1'].push(await hammer([{ url: a!, connections: 16, body }]));
    search['2'].push(
      await hammer([
        { url: a!, connections: 8, body },
        { url: b!, connections: 8, body },
      ]),
    );
    reference['1'].push(await hammer([{ url: `http://127.0.0.1:${koaPorts[0]}/`, connections: 16 }]));
    reference['2'].push(
      await hammer([
        { url: `http://127.0.0.1:${koaPorts[0]}/`, connections: 8 },
        { url: `http://127.0.0.1:${koaPorts[1]}/`, connections: 8 },
      ]),
    );
  }
  for (const child of koa) child.kill();
  const rateOf = (runs: Array<{ rate: number }>): number => median(runs.map((run) => run.rate));
  const failedOf = (runs: Array<{ failed: number }>): number => median(runs.map((run) => run.failed));
  const [s1, s2, r1, r2] = [
    rateOf(search['1']),
    rateOf(search['2']),
    rateOf(reference['1']),
    rateOf(reference['2']),
  ];
  const stats = (await (await fetch(`${cluster.apiUrls[0]}/api/v1/documents/stats`, { headers })).json()) as {
    total_documents: number;
  };
  console.log(
    `/search over ${stats.total_documents} documents, 16 connections in all, ${SECONDS} s per round, medians of ${ROUNDS}:`,
  );
  console.log(
    `  1 API : ${s1.toFixed(1)} requests/s answered 2xx (median ${failedOf(search['1'])} others a round)`,
  );
  console.log(
    `  2 APIs: ${s2.toFixed(1)} requests/s answered 2xx (×${(s2 / s1).toFixed(2)}; median ${failedOf(search['2'])} others a round)`,
  );
  console.log(
    `  bare Koa reference: ${r1.toFixed(0)} → ${r2.toFixed(0)} requests/s (×${(r2 / r1).toFixed(2)})`,
  );
} finally {
  await cluster.down();
  rmSync(dir, { recursive: true, force: true });
}
