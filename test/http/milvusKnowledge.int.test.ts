import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { silentLogger } from '../../src/log.js';
import { createMilvusIndex } from '../../src/vector/milvusIndex.js';
import { clusterMode, skipInCluster } from '../support/cluster.js';
import { startMilvus } from '../support/milvusLite.js';
import { eventually, startTestApp, type TestApp } from '../support/testApp.js';

// Not in cluster mode, where the suite is skipped: no Milvus of its own is started for nothing.
const started = clusterMode()
  ? { handle: null, error: null }
  : await startMilvus().then(
      (handle) => ({ handle, error: null }),
      (error: unknown) => ({ handle: null, error }),
    );
const milvus = started.handle;
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'documents', 'text');

describe('knowledge base over HTTP with VECTOR_STORE=milvus', function () {
  this.timeout(60_000);
  let app: TestApp;
  let collection = '';

  /** The app's collection as another process sees it: what is in Milvus, not in this process. */
  const milvusCount = async (): Promise<number> => {
    const index = createMilvusIndex({ url: milvus!.url, collection, dimensions: 384, log: silentLogger });
    try {
      return await index.count();
    } finally {
      await index.close();
    }
  };
  // Each test app has an event log of its own: a collection left by another would hold a checkpoint
  // from a different log.
  const dropCollection = async (): Promise<void> =>
    createMilvusIndex({ url: milvus!.url, collection, dimensions: 384, log: silentLogger }).drop();

  before(function () {
    skipInCluster(
      this,
      'starts apps with a Milvus and an event log of their own, and drops their collection; the cluster runs VECTOR_STORE=milvus for every suite',
    );
    if (started.error) throw started.error;
    if (!milvus) this.skip();
  });
  beforeEach(async () => {
    app = await startTestApp({ env: { VECTOR_STORE: 'milvus', MILVUS_URL: milvus!.url } });
    collection = app.runtime.knowledge.collection;
    await app.stop();
    await dropCollection();
    app = await startTestApp({ env: { VECTOR_STORE: 'milvus', MILVUS_URL: milvus!.url } });
  });
  afterEach(async () => {
    await app.stop();
    await dropCollection();
  });
  after(async () => milvus?.dispose());

  const upload = async (name: string) => {
    const response = await app.http
      .post('/api/v1/upload')
      .attach('file', await readFile(join(fixtures, name)), name)
      .expect(200);
    return response.body as Record<string, unknown>;
  };

  it('ingests a document into Milvus and finds it by search at once, and says where vectors are', async () => {
    const result = await upload('readme.md');
    expect(result).to.include({ success: true });
    expect(result['chunks_added']).to.be.a('number').greaterThan(0);
    const docId = result['doc_id'] as string;
    expect(await milvusCount()).to.equal(result['chunks_added']);

    const search = await app.http
      .post('/api/v1/search')
      .send({ query: 'river bank erosion volunteers' })
      .expect(200);
    expect(search.body.results[0]).to.include({ doc_id: docId });

    const stats = await app.http.get('/api/v1/health/stats').expect(200);
    expect(stats.body).to.include({ vector_store_path: milvus!.url, collection_name: collection });
    const ready = await app.http.get('/api/v1/health/ready');
    const vectorStore = (ready.body.components as Array<Record<string, unknown>>).find(
      (component) => component.name === 'vector_store',
    );
    expect(vectorStore).to.include({ healthy: true });
    expect(vectorStore!['reason']).to.equal(`serving ${collection} at ${milvus!.url} (milvus)`);
  });

  it('removes a deleted document’s chunks from Milvus', async () => {
    const kept = await upload('report.txt');
    const deleted = await upload('readme.md');
    expect(await milvusCount()).to.equal(
      (kept['chunks_added'] as number) + (deleted['chunks_added'] as number),
    );
    await app.http.delete(`/api/v1/documents/${String(deleted['doc_id'])}`).expect(200);
    expect(await milvusCount()).to.equal(kept['chunks_added']);
    const search = await app.http.post('/api/v1/search').send({ query: 'river bank erosion' }).expect(200);
    expect(search.body.results.map((hit: { doc_id: string }) => hit.doc_id)).to.not.include(
      deleted['doc_id'],
    );
  });
});

describe('knowledge base over HTTP while Milvus is away', function () {
  this.timeout(90_000);
  let own: Awaited<ReturnType<typeof startMilvus>> = null;
  let app: TestApp | null = null;
  const vectorStore = async () => {
    const ready = await app!.http.get('/api/v1/health/ready');
    return (ready.body.components as Array<{ name: string; healthy: boolean; reason: string }>).find(
      (component) => component.name === 'vector_store',
    )!;
  };

  before(async function () {
    skipInCluster(
      this,
      "kills and restarts a Milvus Lite of its own; the cluster's is shared by every suite",
    );
    own = await startMilvus({ own: true });
    if (!own?.managed) {
      console.log(
        '      skipped: the outage test needs a Milvus Lite of its own (pip install milvus-lite==2.5.1)',
      );
      this.skip();
    }
    app = await startTestApp({ env: { VECTOR_STORE: 'milvus', MILVUS_URL: own!.url } });
  });
  after(async () => {
    await app?.stop();
    if (own?.managed) await own.dispose();
  });

  it('reports the vector store down and answers searches lexical only, saying so, then both halves once Milvus is back', async () => {
    const docId = (
      await app!.http
        .post('/api/v1/upload')
        .attach('file', await readFile(join(fixtures, 'readme.md')), 'readme.md')
        .expect(200)
    ).body.doc_id as string;
    await own!.stop('SIGKILL');

    const down = await vectorStore();
    expect(down.healthy).to.equal(false);
    expect(down.reason).to.match(
      /vector store down \(Milvus at http:\/\/127\.0\.0\.1:\d+: listCollections failed.*\), search is lexical only/,
    );
    // The lexical half answers alone, and the response says the dense half was off and why.
    const lexical = await app!.http.post('/api/v1/search').send({ query: 'river bank erosion' }).expect(200);
    expect(lexical.body.results[0]).to.include({ doc_id: docId });
    expect(lexical.headers['x-dense-retrieval']).to.match(/^off \(vector store unavailable, lexical only: /);
    const answered = await app!.http
      .post('/api/v1/query')
      .send({ question: 'river bank erosion' })
      .expect(200);
    expect(answered.body.sources[0]).to.include({ doc_id: docId });
    expect(answered.body.timing.dense_retrieval).to.match(/^off \(vector store unavailable, lexical only: /);

    await own!.restart();
    const search = await eventually(
      async () => {
        const response = await app!.http.post('/api/v1/search').send({ query: 'river bank erosion' });
        return response.headers['x-dense-retrieval'] === app!.runtime.knowledge.collection
          ? response
          : undefined;
      },
      20_000,
      'search to read the vector index again',
    );
    expect(search.body.results[0]).to.include({ doc_id: docId });
    expect((await vectorStore()).healthy).to.equal(true);
  });
});
