/**
 * The MongoDB read store against the server from `startMongo()` (MONGODB_URL, else FerretDB v1 on
 * SQLite): upsert throughput in batches of 1,000, indexed queries, and full-text search at 10,000
 * documents. Skipped, with the reason, when there is no server.
 */
import { MongoClient } from 'mongodb';
import { createMongoReadStore } from '../src/readStore/mongoReadStore.js';
import type { Doc, ReadStore } from '../src/readStore/readStore.js';
import { startMongo } from '../test/support/ferretDb.js';
import { machine, percentile, report } from './support.js';

const DOCS = 10_000;
const BATCH = 1_000;

/** Deterministic pseudo-random numbers (mulberry32), so every run indexes the same text. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'qua', 'der', 'mon', 'ph', 'ist'];
const vocabulary = Array.from({ length: 5_000 }, (_, i) => {
  let word = '';
  for (let n = i + 7; n > 0; n = Math.floor(n / syllables.length)) word += syllables[n % syllables.length];
  return word;
});
const next = random(42);
// Zipf-like: a few words are common, most are rare, as in real text.
const word = (): string => vocabulary[Math.floor(vocabulary.length * next() ** 3)]!;
const words = (count: number): string => Array.from({ length: count }, word).join(' ');

const makeDoc = (i: number): Doc => ({
  id: `d${i}`,
  owner: `u${i % 50}`,
  kind: ['note', 'task', 'doc'][i % 3]!,
  n: i,
  title: words(5),
  text: words(60),
});

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

/** Writes the documents in batches of 1,000 and returns each batch's rate in docs/s. */
async function upsertRates(store: ReadStore, collection: string, docs: Doc[]): Promise<number[]> {
  const rates: number[] = [];
  for (let i = 0; i < docs.length; i += BATCH) {
    const batch = docs.slice(i, i + BATCH);
    const started = performance.now();
    await store.write(batch.map((doc) => ({ op: 'upsert' as const, collection, doc })));
    rates.push(batch.length / ((performance.now() - started) / 1000));
  }
  return rates;
}

const overall = (rates: number[]): number => rates.length / rates.reduce((sum, rate) => sum + 1 / rate, 0);
const thousands = (n: number): string => n.toLocaleString('en');

const mongo = await startMongo();
if (!mongo) process.exit(0);
const database = `archivist_bench_${process.pid}`;
const store = createMongoReadStore({ url: mongo.url, database });
try {
  console.log(`machine: ${machine()}`);
  console.log(`server: ${mongo.kind} at ${mongo.url}`);
  const docs = Array.from({ length: DOCS }, (_, i) => makeDoc(i));
  await store.ensureCollection({ name: 'plain', indexes: ['owner', 'n'] });
  await store.ensureCollection({ name: 'notes', indexes: ['owner', 'n'], textFields: ['title', 'text'] });

  // On FerretDB's SQLite backend every update by id scans the table: rates fall as collections grow.
  const plain = await upsertRates(store, 'plain', docs.slice(0, 2 * BATCH));
  report('upsert, no text fields, batch 1 (empty collection)', plain[0]!, 'docs/s');
  report('upsert, no text fields, batch 2 (at 1,000 docs)', plain[1]!, 'docs/s');
  const notes = await upsertRates(store, 'notes', docs);
  report('upsert, 2 text fields, batch 1 (empty collection)', notes[0]!, 'docs/s');
  report(`upsert, 2 text fields, last batch (at ${thousands(DOCS - BATCH)} docs)`, notes.at(-1)!, 'docs/s');
  report(`upsert, 2 text fields, 0 to ${thousands(DOCS)} docs overall`, overall(notes), 'docs/s');
  // Replacing is where FerretDB scans: a smaller sample keeps the run short.
  const replacing = await upsertRates(store, 'notes', docs.slice(0, 100));
  report(`upsert, replacing 100 existing docs at ${thousands(DOCS)}`, replacing[0]!, 'docs/s');
  const patches = await timed(20, () =>
    store.write([
      { op: 'patch', collection: 'notes', id: `d${Math.floor(next() * DOCS)}`, set: { kind: 'x' } },
    ]),
  );
  report(`patch one doc at ${thousands(DOCS)}: p50`, percentile(patches, 50), 'ms');

  const byId = await timed(100, () => store.get('notes', `d${Math.floor(next() * DOCS)}`));
  report(`get by id at ${thousands(DOCS)} docs: p50`, percentile(byId, 50), 'ms');
  const indexed = await timed(100, () =>
    store.find('notes', { filter: { owner: `u${Math.floor(next() * 50)}` }, sort: [['n', -1]], limit: 20 }),
  );
  report('find on an indexed field, sorted, limit 20: p50', percentile(indexed, 50), 'ms');
  report('find on an indexed field, sorted, limit 20: p99', percentile(indexed, 99), 'ms');
  const counts = await timed(30, () => store.countBy('notes', 'kind', { owner: 'u3' }));
  report('countBy with a filter: p50', percentile(counts, 50), 'ms');

  // Terms of middling frequency, as users type them; the last one cut to a prefix.
  const common = vocabulary[40]!;
  const rarer = vocabulary[400]!;
  const twoTerms = await timed(20, () => store.search('notes', `${common} ${rarer.slice(0, 4)}`));
  const hits = (await store.search('notes', `${common} ${rarer.slice(0, 4)}`, { limit: 100_000 })).length;
  report(`search, two terms (${hits} matches of ${thousands(DOCS)}): p50`, percentile(twoTerms, 50), 'ms');
  const prefixOnly = await timed(20, () => store.search('notes', common.slice(0, 3)));
  const prefixHits = (await store.search('notes', common.slice(0, 3), { limit: 100_000 })).length;
  report(`search, one prefix (${prefixHits} matches): p50`, percentile(prefixOnly, 50), 'ms');
  const rare = await timed(20, () => store.search('notes', vocabulary[3_000]!));
  report('search, one rare term: p50', percentile(rare, 50), 'ms');
} finally {
  await store.close();
  const client = new MongoClient(mongo.url);
  await client
    .db(database)
    .dropDatabase()
    .catch(() => undefined);
  await client.close();
  await mongo.dispose();
}
