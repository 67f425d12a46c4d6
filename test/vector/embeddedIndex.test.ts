import { mkdtemp, readdir, readFile, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openEmbeddedIndex, type EmbeddedVectorIndex } from '../../src/vector/embeddedIndex.js';
import type { VectorIndex } from '../../src/vector/vectorIndex.js';
import { unitVector, vectorIndexContract } from '../contracts/vectorIndex.contract.js';
import { eventually } from '../support/eventually.js';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'archivist-vectors-'));
});
after(async () => rm(dir, { recursive: true, force: true }));

const open = (collection: string, dimensions: number, exactBelow = 1_000) =>
  openEmbeddedIndex({ dir, collection, dimensions, exactBelow });

for (const [label, exactBelow] of [
  ['exact', 1_000],
  ['hnsw', 0],
] as const) {
  // Searches of the graph variant wait for the background build to hold every write first.
  const searchingSettled = (index: EmbeddedVectorIndex): VectorIndex =>
    exactBelow === 0
      ? Object.assign(Object.create(index) as EmbeddedVectorIndex, {
          search: async (...args: Parameters<VectorIndex['search']>) => {
            await index.settleGraph();
            return index.search(...args);
          },
        })
      : index;
  vectorIndexContract(`embedded (${label})`, () => ({
    open: async (collection, dimensions) => searchingSettled(open(collection, dimensions, exactBelow)),
    async reopen(index: VectorIndex, dimensions = index.dimensions) {
      await index.close();
      return searchingSettled(open(index.collection, dimensions, exactBelow));
    },
  }));
}

describe('embedded vector index', () => {
  it('drops writes after the last commit on a restart: the runner replays them from its checkpoint', async () => {
    const index = open('uncommitted', 8);
    await index.upsert([{ id: 'a', docId: 'a', vector: unitVector(1, 8) }]);
    await index.commit('1');
    await index.upsert([{ id: 'b', docId: 'b', vector: unitVector(2, 8) }]);
    await index.close();
    const reopened = open('uncommitted', 8);
    expect(await reopened.checkpoint()).to.equal('1');
    expect(await reopened.count()).to.equal(1);
    await reopened.drop();
  });

  it('groups durable commits: one a second, in the background, the next by a timer, the last on close', async () => {
    const index = open('grouped', 8);
    const durable = async () =>
      (JSON.parse(await readFile(join(dir, 'grouped', 'checkpoint.json'), 'utf8')) as { checkpoint: string })
        .checkpoint;
    await index.upsert([{ id: 'a', docId: 'a', vector: unitVector(1, 8) }]);
    await index.commit('1');
    // Synced off the thread: the commit returns before its fsyncs end.
    await eventually(
      async () => ((await durable().catch(() => null)) === '1' ? true : undefined),
      3_000,
      'checkpoint 1 synced',
    );
    await index.upsert([{ id: 'b', docId: 'b', vector: unitVector(2, 8) }]);
    await index.commit('2');
    // Within a second of the last durable commit: recorded, not yet synced.
    expect(await index.checkpoint()).to.equal('2');
    expect(await durable()).to.equal('1');
    await eventually(
      async () => ((await durable()) === '2' ? true : undefined),
      3_000,
      'checkpoint 2 synced',
    );
    await index.upsert([{ id: 'c', docId: 'c', vector: unitVector(3, 8) }]);
    await index.commit('3');
    expect(await durable()).to.equal('2');
    await index.close();
    const reopened = open('grouped', 8);
    expect(await reopened.checkpoint()).to.equal('3');
    expect(await reopened.count()).to.equal(3);
    await reopened.drop();
  });

  it('HNSW search finds at least 90 % of the exact nearest ten on 5,000 vectors', async () => {
    const dimensions = 64;
    const exact = open('recall_exact', dimensions, 1_000_000);
    const hnsw = open('recall_hnsw', dimensions, 0);
    const records = Array.from({ length: 5_000 }, (_, i) => ({
      id: `v${i}`,
      docId: `d${i % 50}`,
      vector: unitVector(i + 1, dimensions),
    }));
    await exact.upsert(records);
    await hnsw.upsert(records);
    await hnsw.settleGraph();
    expect((await hnsw.health()).reason).to.contain('HNSW graph');
    let found = 0;
    for (let q = 0; q < 50; q += 1) {
      const query = unitVector(100_000 + q, dimensions);
      const truth = new Set((await exact.search(query, { k: 10 })).map((hit) => hit.id));
      found += (await hnsw.search(query, { k: 10 })).filter((hit) => truth.has(hit.id)).length;
    }
    expect(found / 500).to.be.at.least(0.9);
    await exact.drop();
    await hnsw.drop();
  });

  it('compacts a log made mostly of overwritten vectors, keeping the live ones', async () => {
    const index = open('compaction', 256);
    for (let round = 0; round < 30; round += 1) {
      await index.upsert(
        Array.from({ length: 100 }, (_, i) => ({
          id: `v${i}`,
          docId: 'd',
          vector: unitVector(round * 1000 + i + 1, 256),
        })),
      );
    }
    await index.commit('30');
    await index.close();
    const reopened = open('compaction', 256);
    expect(await reopened.count()).to.equal(100);
    const [hit] = await reopened.search(unitVector(29 * 1000 + 7 + 1, 256), { k: 1 });
    expect(hit).to.include({ id: 'v7' });
    expect(await readdir(join(dir, 'compaction'))).to.have.members(['vectors.log', 'checkpoint.json']);
    // 3,000 writes of 1 kB vectors; 100 live ones are what is left.
    expect((await stat(join(dir, 'compaction', 'vectors.log'))).size).to.be.below(150_000);
    await reopened.drop();
  });

  const records = (count: number, dimensions: number, from = 0) =>
    Array.from({ length: count }, (_, i) => ({
      id: `v${from + i}`,
      docId: `d${(from + i) % 20}`,
      vector: unitVector(from + i + 1, dimensions),
    }));
  const graphFiles = async (collection: string) =>
    (await readdir(join(dir, collection))).filter((name) => name.endsWith('.usearch'));

  it('scans every vector, quantised then rescored, finding the same nearest ten as exact float scores', async () => {
    const index = open('scan', 96, 1_000_000);
    const stored = records(3_000, 96);
    await index.upsert(stored);
    for (let q = 0; q < 20; q += 1) {
      const query = unitVector(50_000 + q, 96);
      const exact = stored
        .map((record) => ({
          id: record.id,
          score: record.vector.reduce((sum, v, i) => sum + v * query[i]!, 0),
        }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 10);
      const found = await index.search(query, { k: 10 });
      expect(found.map((hit) => hit.id)).to.deep.equal(exact.map((hit) => hit.id));
      expect(found[0]!.score).to.be.closeTo(exact[0]!.score, 1e-6);
    }
    await index.drop();
  });

  it('answers by scanning while its graph builds in a worker thread, then searches the graph', async () => {
    const index = open('background', 64, 1_000);
    await index.upsert(records(20_000, 64));
    expect((await index.health()).reason).to.contain('scan; graph building');
    const [hit] = await index.search(unitVector(7_778, 64), { k: 1 });
    expect(hit!.id).to.equal('v7777');
    expect(hit!.score).to.be.closeTo(1, 1e-6);
    await index.settleGraph();
    expect((await index.health()).reason).to.contain('HNSW graph');
    expect((await index.search(unitVector(7_778, 64), { k: 1 }))[0]).to.include({ id: 'v7777' });
    await index.drop();
  });

  it('keeps its graph across a restart, and finds vectors written after the graph was built', async () => {
    const index = open('persisted', 64, 1_000);
    await index.upsert(records(3_000, 64));
    await index.settleGraph();
    await index.upsert(records(10, 64, 3_000));
    await index.delete(['v5']);
    await index.commit('2');
    await index.close();
    const files = await graphFiles('persisted');
    expect(files).to.have.length(1);
    const reopened = open('persisted', 64, 1_000);
    // Taken up as it was: no build, and the later writes are scored exactly beside it.
    expect((await reopened.health()).reason).to.match(/HNSW graph\)$/);
    expect((await reopened.search(unitVector(3_006, 64), { k: 1 }))[0]).to.include({ id: 'v3005' });
    expect((await reopened.search(unitVector(6, 64), { k: 3 })).map((hit) => hit.id)).not.to.include('v5');
    expect(await graphFiles('persisted')).to.deep.equal(files);
    await reopened.drop();
  });

  it('refuses a damaged graph file without crashing: it scans, and builds the graph again', async () => {
    const index = open('damaged', 64, 1_000);
    await index.upsert(records(3_000, 64));
    await index.commit('1');
    await index.settleGraph();
    await index.close();
    const [file] = await graphFiles('damaged');
    // Cut short past its header: mapped as it is, usearch would crash the process with SIGBUS.
    await truncate(join(dir, 'damaged', file!), 100_000);
    const reopened = open('damaged', 64, 1_000);
    expect((await reopened.health()).reason).to.contain('saved graph unreadable');
    expect((await reopened.search(unitVector(43, 64), { k: 1 }))[0]).to.include({ id: 'v42' });
    await reopened.settleGraph();
    expect((await reopened.health()).reason).to.match(/HNSW graph\)$/);
    await reopened.drop();
  });
});
