import { childEnv } from '../support/childEnv.js';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { createReadStoreEmbeddingCache } from '../../src/knowledge/embeddingCache.js';
import { createLocalEmbedder } from '../../src/models/localEmbedder.js';
import { openReadStore } from '../../src/adapters.js';
import { CHUNKS, type ChunkView } from '../../src/projections/knowledgeProjection.js';
import type { ActiveCollection } from '../../src/vector/activeCollection.js';
import { openEmbeddedIndex } from '../../src/vector/embeddedIndex.js';
import { startTestApp } from '../support/testApp.js';
import { uploadTextFixtures } from '../support/uploadTextFixtures.js';

const cli = join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');

function run(args: string[], env: Record<string, string>) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], {
    env: childEnv({ LOG_LEVEL: 'silent', ...env }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('archivist rebuild: the vector index', function () {
  this.timeout(120_000);
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'archivist-rebuild-vectors-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('builds a new collection from the embedding cache beside the active one, switches to it and drops the old', async () => {
    const env = { DATA_DIR: dataDir, EVENT_STORE: 'file' };
    let app = await startTestApp({ env });
    await uploadTextFixtures(app, 'readme.md', 'guide.rst');
    const before = (await app.http.get('/api/v1/health/stats')).body as {
      collection_name: string;
      vector_store_path: string;
    };
    const vectors = await app.runtime.knowledge.vectorIndex().count();
    const [chunk] = await app.runtime.readModels.find<ChunkView>(CHUNKS, { limit: 1 });
    await app.stop();

    // A canary planted in the cache for one chunk: the local embedder would never give this vector,
    // so finding it in the rebuilt index proves its vectors came from the cache, not the embedder.
    const embedder = createLocalEmbedder();
    const canary = new Float32Array(embedder.dimensions).map((_, at) => (at % 7 === 0 ? 1 : 0));
    const norm = Math.hypot(...canary);
    const planted = canary.map((value) => value / norm);
    const readStore = await openReadStore(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    await createReadStoreEmbeddingCache(readStore).put(embedder.space, [
      { hash: chunk!.contentHash, vector: planted },
    ]);
    await readStore.close();

    const rebuilt = run(['rebuild', 'vectors'], env);
    expect(rebuilt.status, rebuilt.stderr).to.equal(0);
    const outcome = JSON.parse(rebuilt.stdout) as Record<string, unknown>;
    const collection = `${before.collection_name}_r1`;
    expect(outcome).to.include({
      projection: 'vectors',
      rebuilt: true,
      collection,
      previous: before.collection_name,
      vectors,
      previous_dropped: true,
    });
    const record = JSON.parse(
      readFileSync(join(dataDir, 'vectors', 'active.json'), 'utf8'),
    ) as ActiveCollection;
    expect(record).to.include({ collection, generation: 2 });
    expect(record.retired).to.deep.equal([]);
    expect(existsSync(before.vector_store_path)).to.equal(false);

    const index = openEmbeddedIndex({
      dir: join(dataDir, 'vectors'),
      collection,
      dimensions: embedder.dimensions,
      exactBelow: 1_000_000,
    });
    try {
      expect(await index.count()).to.equal(vectors);
      const [hit] = await index.search(planted, { k: 1 });
      expect(hit?.id).to.equal(chunk!.id);
      expect(hit!.score).to.be.greaterThan(0.9999);
    } finally {
      await index.close();
    }

    // The server takes up the rebuilt collection; a second rebuild numbers the next one.
    app = await startTestApp({ env });
    try {
      const stats = (await app.http.get('/api/v1/health/stats')).body as { collection_name: string };
      expect(stats.collection_name).to.equal(collection);
      const search = await app.http.post('/api/v1/search').send({ query: 'configuration file' }).expect(200);
      expect(search.headers['x-dense-retrieval']).to.equal(collection);
      expect(search.body.count).to.be.greaterThan(0);
    } finally {
      await app.stop();
    }
    const again = run(['rebuild', 'vectors'], env);
    expect(again.status, again.stderr).to.equal(0);
    expect(JSON.parse(again.stdout)).to.include({ collection: `${before.collection_name}_r2`, vectors });
    expect(existsSync(join(dataDir, 'vectors', collection))).to.equal(false);
  });

  it('beside a running server: the server takes up the rebuilt collection and drops the old one', async () => {
    const env = { DATA_DIR: dataDir, EVENT_STORE: 'file' };
    const app = await startTestApp({ env });
    try {
      await uploadTextFixtures(app, 'readme.md');
      const before = (await app.http.get('/api/v1/health/stats')).body as {
        collection_name: string;
        vector_store_path: string;
      };
      const vectors = await app.runtime.knowledge.vectorIndex().count();
      const rebuilt = run(['rebuild', 'vectors'], env);
      expect(rebuilt.status, rebuilt.stderr).to.equal(0);
      const collection = `${before.collection_name}_r1`;
      expect(JSON.parse(rebuilt.stdout)).to.include({ collection, vectors, previous_dropped: false });

      const { eventually } = await import('../support/eventually.js');
      await eventually(
        async () =>
          (await app.http.get('/api/v1/health/stats')).body.collection_name === collection ? true : undefined,
        10_000,
        'the server to take up the rebuilt collection',
      );
      await eventually(
        () => (existsSync(before.vector_store_path) ? undefined : true),
        5_000,
        'old folder gone',
      );
      // It keeps following the log into the new collection.
      await app.http
        .post('/api/v1/upload')
        .attach('file', Buffer.from('Okapis graze beside the rebuilt index.'), 'okapi.txt')
        .expect(200);
      expect(await app.runtime.knowledge.vectorIndex().count()).to.be.greaterThan(vectors);
      const search = await app.http.post('/api/v1/search').send({ query: 'okapis graze' }).expect(200);
      expect(search.headers['x-dense-retrieval']).to.equal(collection);
      expect(search.body.results[0].source).to.match(/okapi\.txt$/);
    } finally {
      await app.stop();
    }
  });
});
