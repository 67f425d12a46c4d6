import { expect } from 'chai';
import type { VectorIndex } from '../../src/vector/vectorIndex.js';
import { VectorIndexError } from '../../src/vector/vectorIndex.js';
import { expectRejection } from '../support/expectRejection.js';

/** A reproducible unit vector (xorshift), so the nearest neighbours are known. */
export function unitVector(seed: number, dimensions: number): Float32Array {
  let state = seed * 2654435761 + 1;
  const vector = new Float32Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    vector[i] = ((state >>> 0) / 4294967296) * 2 - 1;
    norm += vector[i]! * vector[i]!;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dimensions; i += 1) vector[i]! /= norm;
  return vector;
}

export interface VectorIndexFactory {
  /** A fresh, empty index. */
  open(collection: string, dimensions: number): Promise<VectorIndex>;
  /** The same collection opened again, as after a restart. */
  reopen(index: VectorIndex): Promise<VectorIndex>;
}

/** What every VectorIndex adapter must do. */
export function vectorIndexContract(name: string, factory: () => VectorIndexFactory): void {
  describe(`VectorIndex contract: ${name}`, () => {
    const dimensions = 16;
    let index: VectorIndex;
    let counter = 0;
    beforeEach(async () => {
      counter += 1;
      index = await factory().open(`contract_${process.pid}_${counter}`, dimensions);
    });
    afterEach(async () => index.drop());

    const record = (id: string, docId: string, seed: number) => ({
      id,
      docId,
      vector: unitVector(seed, dimensions),
    });

    it('finds the nearest vectors by cosine, best first, with their documents', async () => {
      await index.upsert([record('a:0', 'a', 1), record('a:1', 'a', 2), record('b:0', 'b', 3)]);
      const hits = await index.search(unitVector(2, dimensions), { k: 2 });
      expect(hits[0]).to.include({ id: 'a:1', docId: 'a' });
      expect(hits[0]!.score).to.be.closeTo(1, 1e-4);
      expect(hits).to.have.length(2);
      expect(hits[0]!.score).to.be.at.least(hits[1]!.score);
    });

    it('upserts idempotently by id: a replay never duplicates', async () => {
      await index.upsert([record('a:0', 'a', 1)]);
      await index.upsert([record('a:0', 'a', 5)]);
      expect(await index.count()).to.equal(1);
      const [hit] = await index.search(unitVector(5, dimensions), { k: 1 });
      expect(hit!.score).to.be.closeTo(1, 1e-4);
    });

    it('deletes by id and by document; unknown ids are ignored', async () => {
      await index.upsert([record('a:0', 'a', 1), record('a:1', 'a', 2), record('b:0', 'b', 3)]);
      await index.delete(['a:0', 'nope']);
      expect(await index.count()).to.equal(2);
      await index.deleteDocument('a');
      expect((await index.search(unitVector(2, dimensions), { k: 5 })).map((hit) => hit.id)).to.deep.equal([
        'b:0',
      ]);
    });

    it('searches only the given documents', async () => {
      await index.upsert([record('a:0', 'a', 1), record('b:0', 'b', 2)]);
      const hits = await index.search(unitVector(1, dimensions), { k: 5, docIds: ['b'] });
      expect(hits.map((hit) => hit.id)).to.deep.equal(['b:0']);
    });

    it('refuses a vector of another dimension', async () => {
      const error = await expectRejection(
        index.upsert([{ id: 'x', docId: 'x', vector: new Float32Array(3) }]),
        VectorIndexError,
      );
      expect(error.code).to.equal('dimension_mismatch');
    });

    it('keeps committed writes and the checkpoint across a restart', async () => {
      expect(await index.checkpoint()).to.equal(null);
      await index.upsert([record('a:0', 'a', 1), record('b:0', 'b', 2)]);
      await index.delete(['b:0']);
      await index.commit('42');
      index = await factory().reopen(index);
      expect(await index.checkpoint()).to.equal('42');
      expect(await index.count()).to.equal(1);
      expect((await index.search(unitVector(1, dimensions), { k: 1 }))[0]).to.include({
        id: 'a:0',
        docId: 'a',
      });
    });
  });
}
