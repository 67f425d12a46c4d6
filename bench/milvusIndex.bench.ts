/**
 * The Milvus vector index against the server from `startMilvus()` (MILVUS_URL, else a Milvus Lite of
 * its own): upsert throughput at 384 dimensions (and the SDK alone at several rows per request, the
 * reason for the adapter's 4,000-row batches), search latency at 20,000 vectors with and without a
 * document filter, what a commit, a checkpoint read and a flush cost. Skipped, with the reason, when
 * there is no server.
 */
import { MilvusClient } from '@zilliz/milvus2-sdk-node';
import { silentLogger } from '../src/log.js';
import { createMilvusIndex } from '../src/vector/milvusIndex.js';
import { parseMilvusUrl } from '../src/vector/milvusUrl.js';
import type { VectorRecord } from '../src/vector/vectorIndex.js';
import { unitVector } from '../test/contracts/vectorIndex.contract.js';
import { startMilvus } from '../test/support/milvusLite.js';
import { machine, median, percentile, report } from './support.js';

const DIMENSIONS = 384;
const ROWS = 20_000;

async function timed(runs: number, call: () => Promise<unknown>): Promise<number[]> {
  await call();
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  return times;
}

const records = (count: number, from = 0): VectorRecord[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `d${(from + i) % 500}:${from + i}`,
    docId: `d${(from + i) % 500}`,
    vector: unitVector(from + i + 1, DIMENSIONS),
  }));

const milvus = await startMilvus();
if (!milvus) process.exit(0);
console.log(`${machine()}; Milvus at ${milvus.managed ? 'a Milvus Lite of its own' : 'MILVUS_URL'}`);

try {
  // The SDK alone, one request per size, into a scratch collection.
  const { address } = parseMilvusUrl(milvus.url);
  // The adapter's keepalive: with the SDK's 10 s pings Milvus Lite drops a connection mid-request.
  const client = new MilvusClient({
    address,
    logLevel: 'error',
    telemetry: { enabled: false },
    channelOptions: { 'grpc.keepalive_time_ms': 300_000 },
  });
  const scratch = `bench_sdk_${process.pid}`;
  await client.createCollection({
    collection_name: scratch,
    fields: [
      { name: 'id', data_type: 'VarChar', is_primary_key: true, max_length: 64 },
      { name: 'vector', data_type: 'FloatVector', dim: DIMENSIONS },
    ],
  });
  await client.createIndex({
    collection_name: scratch,
    field_name: 'vector',
    index_type: 'AUTOINDEX',
    metric_type: 'COSINE',
  });
  await client.loadCollection({ collection_name: scratch });
  for (const size of [1_000, 2_000, 4_000, 5_000]) {
    const data = records(size, size * 10).map((record) => ({
      id: record.id,
      vector: Array.from(record.vector),
    }));
    const started = performance.now();
    const result = await client.upsert({ collection_name: scratch, data, timeout: 120_000 });
    if (result.status.code !== 0) throw new Error(result.status.reason);
    report(
      `SDK upsert, ${size.toLocaleString('en')} rows in one request`,
      size / ((performance.now() - started) / 1000),
      'rows/s',
    );
  }
  await client.dropCollection({ collection_name: scratch });
  await client.closeConnection();

  const index = createMilvusIndex({
    url: milvus.url,
    collection: `bench_${process.pid}`,
    dimensions: DIMENSIONS,
    log: silentLogger,
    timeoutMs: 120_000,
  });
  await index.count();
  const all = records(ROWS);
  let started = performance.now();
  for (let at = 0; at < ROWS; at += 4_000) await index.upsert(all.slice(at, at + 4_000));
  report(
    `adapter upsert, ${ROWS.toLocaleString('en')} × ${DIMENSIONS} in calls of 4,000 (requests of 1,000)`,
    ROWS / ((performance.now() - started) / 1000),
    'rows/s',
  );
  started = performance.now();
  for (let at = 0; at < 2_000; at += 100) await index.upsert(all.slice(at, at + 100));
  report(
    'adapter upsert, batches of 100 (a projector batch)',
    2_000 / ((performance.now() - started) / 1000),
    'rows/s',
  );

  let query = 0;
  const search = await timed(200, () =>
    index.search(unitVector(1_000_000 + (query += 1), DIMENSIONS), { k: 10 }),
  );
  report(`search top-10 at ${ROWS.toLocaleString('en')}, p50`, median(search), 'ms');
  report(`search top-10 at ${ROWS.toLocaleString('en')}, p99`, percentile(search, 99), 'ms');
  const filtered = await timed(200, () =>
    index.search(unitVector(2_000_000 + (query += 1), DIMENSIONS), { k: 10, docIds: ['d1', 'd2', 'd3'] }),
  );
  report('search top-10 within 3 documents, p50', median(filtered), 'ms');

  let position = 0;
  const commits = await timed(100, () => index.commit(String((position += 1))));
  report('commit (checkpoint row, no flush due), p50', median(commits), 'ms');
  const reads = await timed(100, () => index.checkpoint());
  report('checkpoint read (Strong query), p50', median(reads), 'ms');
  report('count, p50', median(await timed(50, () => index.count())), 'ms');

  const flushClient = new MilvusClient({
    address,
    logLevel: 'error',
    telemetry: { enabled: false },
    channelOptions: { 'grpc.keepalive_time_ms': 300_000 },
  });
  const flushes: number[] = [];
  const syncFlushes: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    await index.upsert(records(1_000, ROWS + round * 1_000));
    let at = performance.now();
    await flushClient.flush({ collection_names: [index.collection] });
    flushes.push(performance.now() - at);
    await index.upsert(records(1_000, ROWS + 10_000 + round * 1_000));
    at = performance.now();
    await flushClient.flushSync({ collection_names: [index.collection] });
    syncFlushes.push(performance.now() - at);
  }
  report('flush after 1,000 upserts (returns at once), median of 5', median(flushes), 'ms');
  report('flushSync after 1,000 upserts (waits until sealed), median of 5', median(syncFlushes), 'ms');
  await flushClient.closeConnection();
  await index.drop();
} finally {
  await milvus.dispose();
}
