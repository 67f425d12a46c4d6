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
  /** The same collection opened again, as after a restart (closing `index` first). */
  reopen(index: VectorIndex, dimensions?: number): Promise<VectorIndex>;
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

    it('keeps one row per id when a batch holds the same id twice: the last one wins', async () => {
      await index.upsert([record('a:0', 'a', 1), record('b:0', 'b', 2), record('a:0', 'a', 3)]);
      expect(await index.count()).to.equal(2);
      const [hit] = await index.search(unitVector(3, dimensions), { k: 1 });
      expect(hit).to.include({ id: 'a:0' });
      expect(hit!.score).to.be.closeTo(1, 1e-4);
    });

    it('replays the writes after the last commit without duplicating any', async () => {
      await index.upsert([record('a:0', 'a', 1), record('a:1', 'a', 2)]);
      await index.commit('1');
      const afterCommit = async (target: VectorIndex): Promise<void> => {
        await target.upsert([record('b:0', 'b', 3), record('a:1', 'a', 4)]);
        await target.delete(['a:0']);
      };
      await afterCommit(index);
      // A crash here: the runner starts again from the checkpoint and applies the same writes.
      index = await factory().reopen(index);
      expect(await index.checkpoint()).to.equal('1');
      await afterCommit(index);
      await afterCommit(index);
      await index.commit('2');
      expect(await index.count()).to.equal(2);
      const hits = await index.search(unitVector(4, dimensions), { k: 5 });
      expect(hits.map((hit) => hit.id).sort()).to.deep.equal(['a:1', 'b:0']);
      expect(hits[0]).to.include({ id: 'a:1' });
    });

    it('deletes idempotently: again, unknown ids and unknown documents change nothing', async () => {
      await index.upsert([record('a:0', 'a', 1), record('b:0', 'b', 2)]);
      await index.delete(['a:0']);
      await index.delete(['a:0']);
      await index.delete([]);
      await index.deleteDocument('a');
      await index.deleteDocument('nobody');
      expect(await index.count()).to.equal(1);
      expect((await index.search(unitVector(2, dimensions), { k: 5 })).map((hit) => hit.id)).to.deep.equal([
        'b:0',
      ]);
    });

    it('stores, filters and deletes ids holding quotes, backslashes, control characters and any script', async () => {
      const awkward = [
        'q"uote',
        "it's",
        'back\\slash',
        'new\nline\ttab',
        'عربي',
        'emoji 😀',
        'x" || doc_id != "',
      ];
      await index.upsert(awkward.map((name, at) => record(`${name}#0`, name, at + 1)));
      expect(await index.count()).to.equal(awkward.length);
      for (const [at, name] of awkward.entries()) {
        const hits = await index.search(unitVector(at + 1, dimensions), { k: 5, docIds: [name] });
        expect(
          hits.map((hit) => [hit.id, hit.docId]),
          name,
        ).to.deep.equal([[`${name}#0`, name]]);
      }
      await index.deleteDocument('new\nline\ttab');
      await index.deleteDocument('x" || doc_id != "');
      await index.delete(["it's#0", 'q"uote#0']);
      const left = await index.search(unitVector(1, dimensions), { k: 20 });
      expect(left.map((hit) => hit.docId).sort()).to.deep.equal(['back\\slash', 'emoji 😀', 'عربي'].sort());
    });

    it('finds nothing for an empty document list, and every vector when k exceeds them', async () => {
      await index.upsert([record('a:0', 'a', 1), record('b:0', 'b', 2)]);
      expect(await index.search(unitVector(1, dimensions), { k: 5, docIds: [] })).to.deep.equal([]);
      expect(await index.search(unitVector(1, dimensions), { k: 0 })).to.deep.equal([]);
      expect(await index.search(unitVector(1, dimensions), { k: 50 })).to.have.length(2);
    });

    it('refuses a query of another dimension, and reopening the collection with other dimensions', async () => {
      const query = await expectRejection(
        index.search(new Float32Array(dimensions + 1), { k: 1 }),
        VectorIndexError,
      );
      expect(query.code).to.equal('dimension_mismatch');
      await index.upsert([record('a:0', 'a', 1)]);
      await index.commit('1');
      const reopened = factory().reopen(index, dimensions * 2);
      const error = await expectRejection(
        reopened.then((other) => other.count()),
        VectorIndexError,
      );
      expect(error.code).to.equal('dimension_mismatch');
      index = await factory().reopen(index);
      expect(await index.count()).to.equal(1);
    });

    it('forgets everything on drop: the same name opens empty, without a checkpoint', async () => {
      await index.upsert([record('a:0', 'a', 1)]);
      await index.commit('7');
      const name = index.collection;
      await index.drop();
      index = await factory().open(name, dimensions);
      expect(await index.count()).to.equal(0);
      expect(await index.checkpoint()).to.equal(null);
    });

    it('reports itself healthy while open, and refuses calls once closed', async () => {
      expect((await index.health()).healthy).to.equal(true);
      const closed = await factory().open(`${index.collection}_closed`, dimensions);
      await closed.upsert([record('a:0', 'a', 1)]);
      await closed.drop();
      expect((await closed.health()).healthy).to.equal(false);
      const error = await expectRejection(closed.upsert([record('a:1', 'a', 2)]), VectorIndexError);
      expect(error.code).to.equal('closed');
    });
  });
}
