import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openEmbeddedIndex } from '../../src/vector/embeddedIndex.js';
import type { VectorIndex } from '../../src/vector/vectorIndex.js';
import { unitVector, vectorIndexContract } from '../contracts/vectorIndex.contract.js';

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
  vectorIndexContract(`embedded (${label})`, () => ({
    open: async (collection, dimensions) => open(collection, dimensions, exactBelow),
    async reopen(index: VectorIndex, dimensions = index.dimensions) {
      await index.close();
      return open(index.collection, dimensions, exactBelow);
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
});
