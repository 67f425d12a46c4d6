/**
 * The embedded vector index at scale (default 1M vectors of 384 dimensions; BENCH_VECTORS to change),
 * in process, on synthetic vectors: 10,000 clusters of unit vectors (a centroid plus noise), queries
 * drawn the same way, so nearest neighbours form neighbourhoods as real embeddings do.
 *
 * 1. Writes through `upsert` (batches of 10,000) and the log replay of a restart.
 * 2. The scan (every vector, int8 SIMD, then exact rescoring): p50/p99 per query, recall@10 against
 *    exact float scores; beside it the reference, a plain float loop in JavaScript (what search did
 *    before), on 20 queries.
 * 3. The HNSW graph above VECTOR_EXACT_BELOW: build time (worker thread, BENCH_GRAPH_THREADS threads,
 *    default 2), p50/p99 per query, recall@10 against the scan.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedIndex } from '../src/vector/embeddedIndex.js';
import { mulberry32 } from './knowledge/corpus.js';
import { machine, median, percentile, report } from './support.js';

const COUNT = Number(process.env['BENCH_VECTORS'] ?? 1_000_000);
const THREADS = Number(process.env['BENCH_GRAPH_THREADS'] ?? 2);
const DIMENSIONS = 384;
const CLUSTERS = Math.max(10, Math.round(COUNT / 100));
const QUERIES = 200;
const random = mulberry32(42);
const gaussian = (): number => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

function normalised(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < vector.length; i += 1) vector[i]! /= norm;
  return vector;
}
const centroids = Array.from({ length: CLUSTERS }, () =>
  normalised(Float32Array.from({ length: DIMENSIONS }, gaussian)),
);
/** A point near a random centroid: noise of about the centroid's own length. */
function near(): Float32Array {
  const centroid = centroids[Math.floor(random() * CLUSTERS)]!;
  return normalised(centroid.map((value) => value + gaussian() * 0.05));
}

console.log(`machine: ${machine()}`);
console.log(`${COUNT.toLocaleString('en')} vectors, ${DIMENSIONS} dimensions, ${CLUSTERS} clusters`);
const dir = mkdtempSync(join(tmpdir(), 'archivist-vector-bench-'));
const timed = async <T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> => {
  const started = performance.now();
  const result = await run();
  return { result, ms: performance.now() - started };
};

try {
  // 1. Writes.
  const scanning = openEmbeddedIndex({
    dir,
    collection: 'bench',
    dimensions: DIMENSIONS,
    exactBelow: COUNT + 1,
  });
  // Every vector also in one flat array, for the reference float loop.
  const all = new Float32Array(COUNT * DIMENSIONS);
  let written = 0;
  const writes = await timed(async () => {
    for (let first = 0; first < COUNT; first += 10_000) {
      const batch = Array.from({ length: Math.min(10_000, COUNT - first) }, (_, i) => ({
        id: `chunk-${first + i}`,
        docId: `doc-${Math.floor((first + i) / 50)}`,
        vector: near(),
      }));
      batch.forEach((record, i) => all.set(record.vector, (first + i) * DIMENSIONS));
      await scanning.upsert(batch);
      written += batch.length;
    }
    await scanning.commit('1');
  });
  report('upsert and commit', (written / writes.ms) * 1000, 'vectors/s');
  const queries = Array.from({ length: QUERIES }, near);

  // 2. The scan, and the float loop it replaced.
  const scanMs: number[] = [];
  const truth: string[][] = [];
  for (const query of queries) {
    const { result, ms } = await timed(() => scanning.search(query, { k: 10 }));
    scanMs.push(ms);
    truth.push(result.map((hit) => hit.id));
  }
  await scanning.close();
  report('scan: search p50', median(scanMs), 'ms');
  report('scan: search p99', percentile(scanMs, 99), 'ms');
  const floatMs: number[] = [];
  let scanRecall = 0;
  for (const [at, query] of queries.slice(0, 20).entries()) {
    const started = performance.now();
    const scores = new Float32Array(COUNT);
    for (let slot = 0; slot < COUNT; slot += 1) {
      let sum = 0;
      for (let i = 0, base = slot * DIMENSIONS; i < DIMENSIONS; i += 1) sum += query[i]! * all[base + i]!;
      scores[slot] = sum;
    }
    const exact = Array.from(scores.keys())
      .sort((a, b) => scores[b]! - scores[a]!)
      .slice(0, 10)
      .map((slot) => `chunk-${slot}`);
    floatMs.push(performance.now() - started);
    scanRecall += truth[at]!.filter((id) => exact.includes(id)).length / 10 / 20;
  }
  report('reference, float loop in JavaScript (sort included): p50', median(floatMs), 'ms');
  report('scan: recall@10 against exact float scores (20 queries)', scanRecall, '', '>= 0.95');

  const reopened = await timed(async () =>
    openEmbeddedIndex({
      dir,
      collection: 'bench',
      dimensions: DIMENSIONS,
      exactBelow: 1,
      graphThreads: THREADS,
    }),
  );
  report('open (replay of the log)', reopened.ms / 1000, 's');
  const graphed = reopened.result;
  const built = await timed(() => graphed.settleGraph());
  report(`graph build (${THREADS} threads, worker thread)`, built.ms / 1000, 's');
  const graphMs: number[] = [];
  let recall = 0;
  for (const [at, query] of queries.entries()) {
    const { result, ms } = await timed(() => graphed.search(query, { k: 10 }));
    graphMs.push(ms);
    recall += result.filter((hit) => truth[at]!.includes(hit.id)).length / 10 / QUERIES;
  }
  report('graph: search p50', median(graphMs), 'ms', '<= 20 (at 1M, over HTTP)');
  report('graph: search p99', percentile(graphMs, 99), 'ms');
  report('graph: recall@10 against the scan', recall, '', '>= 0.95');
  await graphed.close();
  const restarted = await timed(async () => {
    const index = openEmbeddedIndex({ dir, collection: 'bench', dimensions: DIMENSIONS, exactBelow: 1 });
    await index.search(queries[0]!, { k: 10 });
    return index;
  });
  report('restart with the saved graph, to the first graph search', restarted.ms / 1000, 's');
  console.log(`  ${(await restarted.result.health()).reason}`);
  await restarted.result.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
