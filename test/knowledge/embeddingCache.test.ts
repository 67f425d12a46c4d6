import { expect } from 'chai';
import { createReadStoreEmbeddingCache, EMBEDDINGS_COLLECTION } from '../../src/knowledge/embeddingCache.js';
import { embedWithCache } from '../../src/knowledge/embedChunks.js';
import { createLocalEmbedder } from '../../src/models/localEmbedder.js';
import type { Embedder } from '../../src/models/embedder.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';

const vector = (...values: number[]): Float32Array => Float32Array.from(values);

describe('embedding cache', () => {
  it('stores durable vectors, so another cache on the same store (another process) reads them', async () => {
    const store = createSqliteReadStore({ path: ':memory:' });
    await createReadStoreEmbeddingCache(store).put('model-a', [{ hash: 'h1', vector: vector(0.6, 0.8) }]);
    const elsewhere = createReadStoreEmbeddingCache(store);
    const found = await elsewhere.get('model-a', ['h1', 'h2']);
    expect([...found.keys()]).to.deep.equal(['h1']);
    expect([...found.get('h1')!]).to.deep.equal([...vector(0.6, 0.8)]);
    expect(await elsewhere.get('model-b', ['h1'])).to.have.property('size', 0);
  });

  it('keeps vectors not worth storing in memory only, the latest ones up to its size', async () => {
    const store = createSqliteReadStore({ path: ':memory:' });
    const cache = createReadStoreEmbeddingCache(store, 2);
    for (const hash of ['h1', 'h2', 'h3'])
      await cache.put('local', [{ hash, vector: vector(1, 0) }], { durable: false });
    expect([...(await cache.get('local', ['h1', 'h2', 'h3'])).keys()]).to.deep.equal(['h2', 'h3']);
    expect(await store.count(EMBEDDINGS_COLLECTION, {})).to.equal(0);
    expect(await createReadStoreEmbeddingCache(store).get('local', ['h3'])).to.have.property('size', 0);
    await cache.delete(['h3']);
    expect([...(await cache.get('local', ['h2', 'h3'])).keys()]).to.deep.equal(['h2']);
  });

  it("hands the local embedder's vectors over in memory and a model's through the store", async () => {
    const store = createSqliteReadStore({ path: ':memory:' });
    const cache = createReadStoreEmbeddingCache(store);
    const local = createLocalEmbedder();
    expect(local.worthStoring).to.equal(false);
    const items = [{ hash: 'a', text: 'the quick brown fox' }];
    const computed = await embedWithCache(local, cache, items);
    expect(await store.count(EMBEDDINGS_COLLECTION, {})).to.equal(0);
    // The vector index takes the same vector without computing it again.
    expect((await cache.get(local.space, ['a'])).get('a')).to.equal(computed.get('a'));

    let calls = 0;
    const model: Embedder = {
      name: 'model',
      space: 'model-space',
      dimensions: 2,
      maxBatch: 8,
      embed: async (texts) => {
        calls += texts.length;
        return texts.map(() => vector(0, 1));
      },
      probe: async () => ({ healthy: true, reason: null }),
    };
    await embedWithCache(model, cache, items);
    expect(await store.count(EMBEDDINGS_COLLECTION, {})).to.equal(1);
    await embedWithCache(model, createReadStoreEmbeddingCache(store), items);
    expect(calls).to.equal(1);
  });
});
