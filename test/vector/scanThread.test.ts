import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openEmbeddedIndex } from '../../src/vector/embeddedIndex.js';
import { ScanThread } from '../../src/vector/scanThread.js';
import type { VectorIndex, VectorRecord } from '../../src/vector/vectorIndex.js';
import { unitVector, vectorIndexContract } from '../contracts/vectorIndex.contract.js';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'archivist-scan-thread-'));
});
after(async () => rm(dir, { recursive: true, force: true }));

const failures: Error[] = [];
const thread = new ScanThread((error) => failures.push(error), { threads: 1 });
// Blocks of 500 vectors spread over two threads: a scan of more than 500 runs in both.
const split = new ScanThread((error) => failures.push(error), { threads: 2, blockSlots: 500 });
const open = (collection: string, dimensions: number, scanThread = thread) =>
  openEmbeddedIndex({
    dir,
    collection,
    dimensions,
    exactBelow: 1_000_000,
    scanThread: { thread: scanThread, from: 1 },
  });

for (const [label, scanThread] of [
  ['scan thread', thread],
  [
    'scan split between two threads',
    new ScanThread((error) => failures.push(error), { threads: 2, blockSlots: 2 }),
  ],
] as const) {
  vectorIndexContract(`embedded (${label})`, () => ({
    open: async (collection, dimensions) => open(collection, dimensions, scanThread),
    async reopen(index: VectorIndex, dimensions = index.dimensions) {
      await index.close();
      return open(index.collection, dimensions, scanThread);
    },
  }));
}

const records = (count: number, dimensions: number, from = 0): VectorRecord[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `v${from + i}`,
    docId: `d${(from + i) % 20}`,
    vector: unitVector(from + i + 1, dimensions),
  }));

/** The nearest ten of `stored` to `query` by exact float inner products. */
function exactTen(stored: Map<string, Float32Array>, query: Float32Array): string[] {
  return [...stored]
    .map(([id, vector]) => ({ id, score: vector.reduce((sum, v, i) => sum + v * query[i]!, 0) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, 10)
    .map((hit) => hit.id);
}

describe('vector scan thread', () => {
  for (const [label, scanThread] of [
    ['one thread', thread],
    ['two threads', split],
  ] as const) {
    it(`finds the exact nearest ten while its copy follows appends, overwrites and deletions (${label})`, async () => {
      const index = open(`follows_${scanThread === split ? 2 : 1}`, 64, scanThread);
      const stored = new Map<string, Float32Array>();
      const write = async (batch: VectorRecord[]) => {
        await index.upsert(batch);
        for (const record of batch) stored.set(record.id, record.vector);
      };
      const check = async (seed: number) => {
        for (let q = 0; q < 5; q += 1) {
          const query = unitVector(seed + q, 64);
          const found = await index.search(query, { k: 10 });
          expect(found.map((hit) => hit.id)).to.deep.equal(exactTen(stored, query));
        }
      };
      await write(records(2_000, 64));
      await check(90_000);
      // A few changed slots go to the thread as rows, many as the whole copy: both paths.
      await write(records(10, 64, 2_000));
      await check(91_000);
      // Overwrites: the same ids take the vectors of others (slots keep their ids).
      await write(records(30, 64, 5_000).map((record, i) => ({ ...record, id: `v${i * 7}` })));
      await check(92_000);
      // Deletions move the last vectors into the freed slots.
      const gone = Array.from({ length: 40 }, (_, i) => `v${i * 13 + 1}`);
      await index.delete(gone);
      for (const id of gone) stored.delete(id);
      await check(93_000);
      await write(records(1_500, 64, 10_000));
      await check(94_000);
      await index.drop();
    });

    it(`answers from the state after a deletion that moved vectors while the thread scanned (${label})`, async () => {
      const index = open(`moved_${scanThread === split ? 2 : 1}`, 32, scanThread);
      const stored = new Map(records(3_000, 32).map((record) => [record.id, record.vector] as const));
      await index.upsert(records(3_000, 32));
      // The query is the last vector: the scan finds it in the last slot.
      const query = stored.get('v2999')!;
      await index.search(query, { k: 10 });
      const pending = index.search(query, { k: 10 });
      // While the thread scans, deleting the first vectors moves the last ones into their slots.
      const gone = ['v0', 'v1', 'v2', 'v3', 'v4'];
      await index.delete(gone);
      for (const id of gone) stored.delete(id);
      const found = await pending;
      expect(found[0]!.id).to.equal('v2999');
      expect(found.map((hit) => hit.id)).to.deep.equal(exactTen(stored, query));
      await index.drop();
    });
  }

  it('scans on the calling thread after the scan thread fails, and says so once', async () => {
    const told: Error[] = [];
    const failing = new ScanThread((error) => told.push(error), {
      workerUrl: new URL('../fixtures/workers/failingScanWorker.ts', import.meta.url),
    });
    const index = open('failing', 16, failing);
    const stored = new Map(records(500, 16).map((record) => [record.id, record.vector] as const));
    await index.upsert(records(500, 16));
    for (let q = 0; q < 3; q += 1) {
      const query = unitVector(60_000 + q, 16);
      const found = await index.search(query, { k: 10 });
      expect(found.map((hit) => hit.id)).to.deep.equal(exactTen(stored, query));
    }
    expect(told).to.have.length(1);
    expect(told[0]!.message).to.contain('scan thread broke');
    expect(failing.failed).to.equal(true);
    await index.drop();
  });

  it('stops its thread when the last collection using it closes', async () => {
    const own = new ScanThread((error) => failures.push(error));
    const first = open('stops_a', 8, own);
    const second = open('stops_b', 8, own);
    await first.upsert(records(50, 8));
    await second.upsert(records(50, 8));
    await first.search(unitVector(1, 8), { k: 3 });
    await second.search(unitVector(2, 8), { k: 3 });
    expect(own.running).to.equal(1);
    await first.close();
    expect(own.running).to.equal(1);
    await second.drop();
    expect(own.running).to.equal(0);
    expect(failures).to.deep.equal([]);
  });

  it("spreads a collection's blocks over its threads, starting the second for the second block", async () => {
    const own = new ScanThread((error) => failures.push(error), { threads: 2, blockSlots: 1_000 });
    const index = open('grows', 16, own);
    const stored = new Map(records(900, 16).map((record) => [record.id, record.vector] as const));
    await index.upsert(records(900, 16));
    const query = unitVector(4_242, 16);
    expect((await index.search(query, { k: 10 })).map((hit) => hit.id)).to.deep.equal(
      exactTen(stored, query),
    );
    expect(own.running).to.equal(1);
    await index.upsert(records(300, 16, 900));
    for (const record of records(300, 16, 900)) stored.set(record.id, record.vector);
    expect((await index.search(query, { k: 10 })).map((hit) => hit.id)).to.deep.equal(
      exactTen(stored, query),
    );
    expect(own.running).to.equal(2);
    await index.drop();
    expect(own.running).to.equal(0);
    expect(failures).to.deep.equal([]);
  });
});
