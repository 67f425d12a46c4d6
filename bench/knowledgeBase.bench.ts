/**
 * The knowledge base at BENCH_CHUNKS chunks (default 100,000), embedded, 384-dimensional local
 * embedder — the default `npm start` configuration:
 *
 * 1. seeding: documents written straight into the event log as ingestion records them;
 * 2. initial build: the compiled server started on that log, until its read models (documents,
 *    chunks, FTS5) and its vector index hold every chunk (the vector projection embeds each one);
 * 3. `POST /api/v1/search` with varied 2–4-word queries: autocannon at BENCH_CONNECTIONS (throughput;
 *    its latencies only restate the saturation), an open loop of 500 arrivals a second from a client
 *    process of its own (p50, p99 against the targets; its first second, the client's warm-up, not
 *    counted) and a closed loop at concurrency 1 (p50, p99);
 * 4. `POST /api/v1/query` p50 with the local extractive answerer; the Assistant API's local-mode
 *    `chat_with_tools` p50 (a recorded query_knowledge call, the answer and four messages stored) and
 *    the time to the first `content` event of `stream_ai_response`;
 * 5. the server's RSS and peak RSS;
 * 6. recall@10 of the vector index as the server searches it (the int8 scan below VECTOR_EXACT_BELOW,
 *    the HNSW graph above) against exact float scores of every chunk, on the persisted index opened in
 *    this process;
 * 7. rebuilding every knowledge-base projection with `archivist rebuild` (the read models, then the
 *    vector index as a new collection from the embedding cache), with proof that the embedder was
 *    not called.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createReadStoreEmbeddingCache, EMBEDDINGS_COLLECTION } from '../src/knowledge/embeddingCache.js';
import { createLocalEmbedder } from '../src/models/localEmbedder.js';
import { normalizeForIndex } from '../src/text/normalize.js';
import { createSqliteReadStore } from '../src/readStore/sqliteReadStore.js';
import { openEmbeddedIndex } from '../src/vector/embeddedIndex.js';
import type { VectorIndex } from '../src/vector/vectorIndex.js';
import { createCorpus, mulberry32, queries, STOP_WORDS } from './knowledge/corpus.js';
import { autocannonLoad, closedLoop, openLoopInChild } from './knowledge/load.js';
import { seedDocuments } from './knowledge/seed.js';
import { peakMb, rssMb } from './memory/processMemory.js';
import {
  archivistCli,
  build,
  COMPILED_CLI,
  machine,
  median,
  percentile,
  report,
  serveCompiled,
} from './support.js';

const CHUNKS = Number(process.env['BENCH_CHUNKS'] ?? 100_000);
const CHUNKS_PER_DOCUMENT = 100;
const DOCUMENTS = Math.ceil(CHUNKS / CHUNKS_PER_DOCUMENT);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 16);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const PORT = 19_300 + Math.floor(Math.random() * 90);
const ORIGIN = `http://127.0.0.1:${PORT}`;
const DIMENSIONS = 384;
const dataDir = mkdtempSync(join(tmpdir(), 'bench-kb-'));
const embedder = createLocalEmbedder({ dimensions: DIMENSIONS });
const seconds = (from: number): number => (performance.now() - from) / 1000;

type Readiness = {
  ready: boolean;
  components: Array<{ name: string; healthy: boolean; reason: string | null }>;
};

/** Says so when a server ends before the benchmark stops it (a crash, or a signal from elsewhere). */
function watch(
  started: Awaited<ReturnType<typeof serveCompiled>>,
): Awaited<ReturnType<typeof serveCompiled>> {
  let stopping = false;
  started.process.once('exit', (code, signal) => {
    if (!stopping) console.error(`the server exited unexpectedly (code ${code}, signal ${signal})`);
  });
  return {
    ...started,
    stop() {
      stopping = true;
      return started.stop();
    },
  };
}

/** Polls readiness until the read models are live and the vector index holds `expected` vectors. */
async function awaitCaughtUp(
  started: number,
  expected: number,
  exited: () => boolean,
): Promise<{ readModels: number; vectors: number; searchIndex: number }> {
  let readModels: number | null = null;
  let vectors: number | null = null;
  // The in-memory search index follows the projection's writes; after a restart it builds anew.
  let searchIndex: number | null = null;
  const deadline = performance.now() + 30 * 60_000;
  while (readModels === null || vectors === null || searchIndex === null) {
    if (exited()) throw new Error('the server exited while catching up');
    if (performance.now() > deadline) throw new Error('the server did not catch up within 30 minutes');
    const response = await fetch(`${ORIGIN}/api/v1/health/ready`).catch(() => null);
    if (response) {
      const body = (await response.json()) as Readiness;
      // `ready` covers the stores, the bus and the read-model projections, not the vector index.
      if (readModels === null && response.status === 200 && body.ready) readModels = seconds(started);
      const store = body.components.find((component) => component.name === 'vector_store');
      const count = Number(/(\d+) vectors/.exec(store?.reason ?? '')?.[1] ?? -1);
      if (vectors === null && count === expected) vectors = seconds(started);
      if (store && !store.healthy) throw new Error(`vector store unhealthy: ${store.reason}`);
      const index = body.components.find((component) => component.name === 'search_index');
      if (searchIndex === null && readModels !== null && (!index || index.healthy))
        searchIndex = seconds(started);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { readModels, vectors, searchIndex };
}

async function post<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

type SearchResponse = { results: Array<{ doc_id: string; metadata: { chunk_id: string } }>; count: number };
type QueryResponse = {
  sources: unknown[];
  timing: Record<'embedding' | 'vector_search' | 'keyword_search' | 'llm_generation' | 'total', number>;
};

const sumMs = <T extends { ms: number }>(steps: readonly T[], which: (step: T) => boolean): number =>
  steps.filter(which).reduce((sum, step) => sum + step.ms, 0);

function topIds(index: VectorIndex, vectors: readonly Float32Array[]): Promise<string[][]> {
  return Promise.all(
    vectors.map(async (vector) => (await index.search(vector, { k: 10 })).map((hit) => hit.id)),
  );
}

const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
console.log(`machine: ${machine()}`);
console.log(`load average at start: ${load()} (other processes share the cores when above 0)`);
console.log(
  `${CHUNKS.toLocaleString('en')} chunks (${DOCUMENTS} documents × ${CHUNKS_PER_DOCUMENT}), ${DIMENSIONS} dims, local embedder, DATA_DIR ${dataDir}`,
);
build();

let server: Awaited<ReturnType<typeof serveCompiled>> | null = null;
try {
  // 1. Seeding.
  const corpus = createCorpus(42);
  let started = performance.now();
  const seeded = await seedDocuments({
    dataDir,
    corpus,
    documents: DOCUMENTS,
    chunksPerDocument: CHUNKS_PER_DOCUMENT,
    wordsPerChunk: 80,
  });
  const seedSeconds = seconds(started);
  if (seeded.chunks !== CHUNKS) console.log(`(seeded ${seeded.chunks} chunks: whole documents)`);
  const chunks = seeded.chunks;
  // The server's default VECTOR_EXACT_BELOW decides whether its index searches exactly or with HNSW.
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir });
  const mode = chunks < config.vectorExactBelow ? 'scan' : 'HNSW';
  console.log(`vector search in the server: ${mode} (VECTOR_EXACT_BELOW=${config.vectorExactBelow})`);
  report(
    `seeding (${seeded.events.toLocaleString('en')} events, ${(seeded.textBytes / 2 ** 20).toFixed(0)} MiB of text)`,
    chunks / seedSeconds,
    'chunks/s',
  );

  // A user of the Assistant API, made with the CLI as an administrator would.
  const cli = COMPILED_CLI;
  const archivist = archivistCli(dataDir);
  archivist('users', 'add', 'bench');
  const authorization = `token ${archivist('users', 'key', 'bench')}`;

  // 2. Initial build.
  started = performance.now();
  // The chat measurements send more than a user's 100 requests a minute.
  server = watch(await serveCompiled(PORT, { DATA_DIR: dataDir, RATE_LIMIT_CHAT_PER_MINUTE: '1000000' }));
  const initial = server;
  const built = await awaitCaughtUp(started, chunks, () => initial.process.exitCode !== null);
  report('initial build: read models live (/health/ready 200)', built.readModels, 's');
  report('initial build: every chunk in the vector index', built.vectors, 's');
  report('initial build: in-memory search index ready', built.searchIndex, 's');
  report(
    'initial build (embeds every chunk)',
    chunks / Math.max(built.readModels, built.vectors),
    'chunks/s',
  );
  const stats = (await (await fetch(`${ORIGIN}/api/v1/health/stats`)).json()) as {
    collection_name: string;
    document_count: number;
    embedding_model: string;
  };
  if (stats.document_count !== DOCUMENTS)
    throw new Error(`stats report ${stats.document_count} documents, not ${DOCUMENTS}`);

  // The first search above VECTOR_EXACT_BELOW builds the HNSW graph; it must find the last chunk by its text.
  started = performance.now();
  const first = await post<SearchResponse>('/api/v1/search', {
    query: seeded.last.text,
    top_k: 10,
    initial_k: 20,
  });
  report(
    `first search after catch-up (${mode === 'HNSW' ? 'scan; the graph builds in the background' : 'scan'})`,
    seconds(started) * 1000,
    'ms',
  );
  if (first.results[0]?.metadata.chunk_id !== seeded.last.chunkId)
    throw new Error(
      `the last chunk is not the first hit for its own text: ${JSON.stringify(first.results[0])}`,
    );

  // 3. Search over HTTP.
  const searchQueries = queries(corpus, 400);
  const searchBodies = searchQueries.map((query) => ({ query, top_k: 10, initial_k: 20 }));
  let empty = 0;
  const countEmpty = (response: unknown): void => {
    if ((response as SearchResponse).count === 0) empty += 1;
  };
  await closedLoop({
    origin: ORIGIN,
    path: '/api/v1/search',
    bodies: searchBodies,
    requests: 400,
    concurrency: 4,
  });
  const loaded = await autocannonLoad({
    url: ORIGIN,
    path: '/api/v1/search',
    bodies: searchBodies,
    connections: CONNECTIONS,
    seconds: SECONDS,
  });
  report(`search, ${CONNECTIONS} connections (autocannon, ${SECONDS} s)`, loaded.rate, 'queries/s', '>= 500');
  // Saturated, so these are the connections over the rate (Little's law), not a service latency.
  report(`search, ${CONNECTIONS} connections: p50 (whole ms)`, loaded.p50, 'ms');
  report(`search, ${CONNECTIONS} connections: p99 (whole ms)`, loaded.p99, 'ms');
  const paced = await openLoopInChild({
    origin: ORIGIN,
    path: '/api/v1/search',
    bodies: searchBodies,
    rate: 500,
    seconds: SECONDS,
    warmUpSeconds: 1,
  });
  report(`search at 500 queries/s (open loop, ${SECONDS} s): p50`, median(paced.latencies), 'ms', '<= 5');
  report(
    `search at 500 queries/s (open loop, ${SECONDS} s): p99`,
    percentile(paced.latencies, 99),
    'ms',
    '<= 20',
  );
  report('search at 500 queries/s: rate reached', paced.rate, 'queries/s');
  console.log(
    `  worst latency of each second (ms): ${paced.worstBySecond.map((worst) => worst.toFixed(1)).join(' ')}`,
  );
  const single = await closedLoop({
    origin: ORIGIN,
    path: '/api/v1/search',
    bodies: searchBodies,
    requests: 800,
    concurrency: 1,
    check: countEmpty,
  });
  report('search, concurrency 1: p50', median(single.latencies), 'ms', '<= 5');
  report('search, concurrency 1: p99', percentile(single.latencies, 99), 'ms', '<= 20');
  if (empty > 0) console.log(`(${empty} of 800 searches found nothing)`);
  const withStopWords = await closedLoop({
    origin: ORIGIN,
    path: '/api/v1/search',
    bodies: queries(corpus, 200, { withStopWord: true }).map((query) => ({
      query,
      top_k: 10,
      initial_k: 20,
    })),
    requests: 200,
    concurrency: 1,
  });
  report(`search, concurrency 1, with a top-${STOP_WORDS} word: p50`, median(withStopWords.latencies), 'ms');

  // 4. Query with the local answerer.
  const timings: QueryResponse['timing'][] = [];
  const answered = await closedLoop({
    origin: ORIGIN,
    path: '/api/v1/query',
    bodies: searchQueries.map((query) => ({
      question: `What is said about ${query}?`,
      top_k: 5,
      initial_k: 20,
      include_timing: true,
      include_context: false,
    })),
    requests: 300,
    concurrency: 1,
    check: (response) => timings.push((response as QueryResponse).timing),
  });
  report('query (local extractive answerer), concurrency 1: p50', median(answered.latencies), 'ms', '<= 50');
  const part = (name: keyof QueryResponse['timing']): string =>
    `${name} ${(median(timings.map((timing) => timing[name])) * 1000).toFixed(2)}`;
  console.log(
    `  query timing medians (ms, as the server reports them): ${(['embedding', 'vector_search', 'keyword_search', 'llm_generation', 'total'] as const).map(part).join(', ')}`,
  );

  // 4b. Chat in local mode: each turn stores four messages and runs query_knowledge in a worker.
  const chatted = await closedLoop({
    origin: ORIGIN,
    path: '/api/method/assistant.api.chat_with_tools',
    headers: { authorization },
    bodies: searchQueries.map((query) => ({ user_message: `What is said about ${query}?` })),
    requests: 300,
    concurrency: 1,
    check: (response) => {
      const calls = (response as { message: { data: { tool_calls: Array<{ status: string }> } } }).message
        .data.tool_calls;
      if (calls[0]?.status !== 'executed')
        throw new Error(`the tool call did not run: ${JSON.stringify(calls)}`);
    },
  });
  report('chat_with_tools (local mode), concurrency 1: p50', median(chatted.latencies), 'ms', '<= 100');
  report('chat_with_tools (local mode), concurrency 1: p99', percentile(chatted.latencies, 99), 'ms');
  const firstContent: number[] = [];
  for (const query of searchQueries.slice(0, 100)) {
    const begin = performance.now();
    const response = await fetch(
      `${ORIGIN}/api/method/assistant.api.stream_ai_response?prompt=${encodeURIComponent(`Tell me about ${query}`)}`,
      { headers: { authorization } },
    );
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let seen = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (!seen && text.includes('event: content')) {
        firstContent.push(performance.now() - begin);
        seen = true;
      }
      if (text.includes('event: done') || text.includes('event: error')) break;
    }
    await reader.cancel();
    if (!seen || !text.includes('event: done'))
      throw new Error(`the stream had no content or no end: ${text.slice(0, 300)}`);
  }
  report('stream_ai_response (local mode): first content event, p50', median(firstContent), 'ms', '<= 150');

  // 5. Memory.
  const memory = { rss: rssMb(initial.process.pid!), peak: peakMb(initial.process.pid!) };
  report('server RSS after the loads (VmRSS)', memory.rss, 'MiB', '<= 1,024');
  report('server peak RSS (VmHWM)', memory.peak, 'MiB', '<= 1,024');
  await initial.stop();

  // 6. Recall@10 of the vector index against exact search, on the persisted index.
  // Two sets of query vectors: 2–4 words drawn like the search queries above, and 2–4 topic words
  // of one document (queries that have a neighbourhood in the corpus).
  const recallRandom = mulberry32(7);
  // Exact scores of every chunk cost ~2 s a query at 1M chunks: fewer queries there.
  const recallQueries = chunks > 250_000 ? 40 : 200;
  const recallSets = {
    'random words': queries(createCorpus(7), recallQueries),
    'topic words': Array.from({ length: recallQueries }, () => {
      const topic = seeded.topics[Math.floor(recallRandom() * seeded.topics.length)]!;
      const size = 2 + Math.floor(recallRandom() * 3);
      return Array.from({ length: size }, () => topic[Math.floor(recallRandom() * topic.length)]).join(' ');
    }),
  };
  const vectorSets = await Promise.all(
    Object.values(recallSets).map((texts) => embedder.embed(texts, { kind: 'query' })),
  );
  const indexOptions = {
    dir: join(dataDir, 'vectors'),
    collection: stats.collection_name,
    dimensions: DIMENSIONS,
  };
  const served = openEmbeddedIndex({ ...indexOptions, exactBelow: config.vectorExactBelow });
  if ((await served.count()) !== chunks) throw new Error(`the index holds ${await served.count()} vectors`);
  // Exact float scores of every chunk: a search limited to every document scores each one exactly.
  const everyDocument = [...new Set(seeded.chunkHashes.map(({ id }) => id.slice(0, id.lastIndexOf(':'))))];
  started = performance.now();
  const exact = await Promise.all(
    vectorSets.map((vectors) =>
      Promise.all(
        vectors.map(async (vector) =>
          (await served.search(vector, { k: 10, docIds: everyDocument })).map((hit) => hit.id),
        ),
      ),
    ),
  );
  const exactMs = (seconds(started) * 1000) / (vectorSets.length * recallQueries);
  started = performance.now();
  await served.settleGraph();
  const graphSeconds = seconds(started);
  started = performance.now();
  const approximate = await Promise.all(vectorSets.map((vectors) => topIds(served, vectors)));
  const approximateMs = (seconds(started) * 1000) / (vectorSets.length * recallQueries);
  await served.close();
  Object.keys(recallSets).forEach((name, set) => {
    const found = exact[set]!.map(
      (ids, at) => ids.filter((id) => approximate[set]![at]!.includes(id)).length / ids.length,
    );
    report(
      `recall@10, ${mode} vs exact, ${recallQueries} queries of ${name}`,
      found.reduce((sum, value) => sum + value, 0) / found.length,
      '',
      '>= 0.95',
    );
  });
  console.log(
    `  in-process: exact float scores ${exactMs.toFixed(2)} ms/query, ${mode} ${approximateMs.toFixed(3)} ms/query${mode === 'HNSW' ? `, HNSW graph build ${graphSeconds.toFixed(1)} s` : ''}`,
  );

  // 7. Rebuild: `archivist rebuild` rebuilds every read model (knowledge: documents, chunks, FTS) and
  // then the vector index, as a new collection filled from the embedding cache. Proof that it takes
  // vectors from the cache: the cache holds every chunk's hash (so embedWithCache has nothing to
  // embed), and canary vectors planted in the cache beforehand come out of the new collection.
  const readStore = createSqliteReadStore({
    path: join(dataDir, 'read.db'),
    normalizeText: normalizeForIndex,
  });
  const cache = createReadStoreEmbeddingCache(readStore);
  const cached = await cache.get(
    embedder.space,
    seeded.chunkHashes.map((chunk) => chunk.hash),
  );
  const random = corpus.random;
  const canaries = Array.from({ length: 20 }, (_, at) => {
    const chunk = seeded.chunkHashes[Math.floor(((at + 0.5) * chunks) / 20)]!;
    const vector = new Float32Array(DIMENSIONS).map(() => random() - 0.5);
    const norm = Math.hypot(...vector);
    return { ...chunk, vector: vector.map((value) => value / norm) };
  });
  await cache.put(
    embedder.space,
    canaries.map(({ hash, vector }) => ({ hash, vector })),
  );
  const cacheRows = await readStore.count(EMBEDDINGS_COLLECTION, { model: embedder.space });
  await readStore.close();
  console.log(
    `  embedding cache before the rebuild: ${cached.size} of ${chunks} chunk hashes cached (${cacheRows} rows for ${embedder.space}); 20 canaries planted`,
  );
  started = performance.now();
  const rebuilt = spawnSync(process.execPath, [cli, 'rebuild'], {
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const rebuildSeconds = seconds(started);
  if (rebuilt.status !== 0) throw new Error(`archivist rebuild failed: ${rebuilt.stderr}`);
  const steps = rebuilt.stdout
    .trim()
    .split('\n')
    .map(
      (line) => JSON.parse(line) as { projection: string; ms: number; collection?: string; vectors?: number },
    );
  console.log(`  archivist rebuild: ${steps.map((step) => JSON.stringify(step)).join(' ')}`);
  const vectorStep = steps.find((step) => step.projection === 'vectors');
  if (!vectorStep?.collection || vectorStep.vectors !== chunks)
    throw new Error(`the rebuild did not report every vector: ${JSON.stringify(vectorStep)}`);
  const check = openEmbeddedIndex({
    ...indexOptions,
    collection: vectorStep.collection,
    exactBelow: chunks + 1,
  });
  let fromCache = 0;
  for (const canary of canaries) {
    const [hit] = await check.search(canary.vector, { k: 1 });
    if (hit?.id === canary.id && hit.score > 0.9999) fromCache += 1;
  }
  await check.close();
  report(
    'rebuild: read models (archivist rebuild, its own timing)',
    sumMs(steps, (step) => step.projection !== 'vectors') / 1000,
    's',
  );
  report('rebuild: vector index from the cache (its own timing)', vectorStep.ms / 1000, 's');
  report('rebuild: canary vectors taken from the cache (of 20)', fromCache, '');
  report('rebuild: every knowledge-base projection (archivist rebuild, wall)', rebuildSeconds, 's', '<= 60');
  if (cached.size !== chunks || fromCache !== canaries.length)
    console.log('  the embedder WAS (or may have been) called during the vector rebuild');
  console.log(`load average at the end: ${load()}`);
} finally {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
