import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createReadStoreEmbeddingCache } from '../../src/knowledge/embeddingCache.js';
import { createVectorCollections, VECTOR_INDEX_VERSION } from '../../src/knowledge/vectorCollections.js';
import { createVectorProjector } from '../../src/knowledge/vectorProjector.js';
import { openVectorStore } from '../../src/knowledge/vectorStore.js';
import { silentLogger } from '../../src/log.js';
import { createLocalEmbedder, localEmbedderFor } from '../../src/models/localEmbedder.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';
import { collectionName } from '../../src/vector/vectorIndex.js';
import { eventually, sleep } from '../support/eventually.js';

describe('blue-green vector collections, stopping', () => {
  let dataDir = '';
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'archivist-collections-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('waits for a retired collection’s drop under way, so the store is not used after it is closed', async () => {
    const eventStore = createSqliteEventStore({ path: ':memory:' });
    const readStore = createSqliteReadStore({ path: ':memory:' });
    const embedder = createLocalEmbedder();
    const base = collectionName(embedder.space, VECTOR_INDEX_VERSION);
    const setup = openVectorStore({
      dataDir,
      exactSearchBelow: 1_000,
      milvus: null,
      readStore,
      log: silentLogger,
    });
    await setup.open('retired_one', 4).close();
    await setup.records.replace(
      {
        collection: base,
        space: embedder.space,
        dimensions: embedder.dimensions,
        generation: 1,
        retired: ['retired_one'],
        switchedAt: '2026-11-27T00:00:00.000Z',
      },
      null,
    );
    setup.close();

    const store = openVectorStore({
      dataDir,
      exactSearchBelow: 1_000,
      milvus: null,
      readStore,
      log: silentLogger,
    });
    let dropStarted = false;
    let finishDrop!: () => void;
    const dropGate = new Promise<void>((resolve) => {
      finishDrop = resolve;
    });
    const collections = createVectorCollections({
      records: store.records,
      open: store.open,
      async drop(collection) {
        dropStarted = true;
        await dropGate;
        await store.drop(collection);
      },
      embedder,
      embedderFor: localEmbedderFor,
      base,
      headPosition: () => eventStore.headPosition(),
      projector: (index, withEmbedder) =>
        createVectorProjector({
          eventStore,
          index,
          embedder: withEmbedder,
          embeddings: createReadStoreEmbeddingCache(readStore),
          hashesInUse: () => Promise.resolve(new Set()),
          log: silentLogger,
        }),
      shared: false,
      dropGraceMs: 0,
      pollMs: 1_000,
      log: silentLogger,
    });
    try {
      await collections.start();
      await eventually(() => (dropStarted ? true : undefined), 5_000, 'the drop under way');
      let stopped = false;
      const stopping = collections.stop().then(() => {
        stopped = true;
      });
      await sleep(50);
      expect(stopped, 'stop returned while a drop was under way').to.equal(false);
      finishDrop();
      await stopping;
      // The drop finished, and took the collection off the record, before the store was closed.
      expect(existsSync(join(dataDir, 'vectors', 'retired_one'))).to.equal(false);
      expect((await store.records.read())?.retired).to.deep.equal([]);
    } finally {
      finishDrop();
      store.close();
      await eventStore.close();
      await readStore.close();
    }
    // Nothing of the stopped store holds the folder: the next store of this process gets it again.
    const next = openVectorStore({
      dataDir,
      exactSearchBelow: 1_000,
      milvus: null,
      readStore,
      log: silentLogger,
    });
    expect(next.path(base)).to.equal(join(dataDir, 'vectors', base));
    next.close();
  });
});
