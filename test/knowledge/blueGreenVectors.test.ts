import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createLocalEmbedder } from '../../src/models/localEmbedder.js';
import type { ActiveCollection } from '../../src/vector/activeCollection.js';
import {
  embeddingsReply,
  startScriptedServer,
  type RecordedRequest,
  type ScriptedServer,
} from '../support/scriptedModelServer.js';
import { eventually, startTestApp, type TestApp } from '../support/testApp.js';
import { uploadTextFixtures } from '../support/uploadTextFixtures.js';

type Stats = { collection_name: string; vector_store_path: string };
type Component = { name: string; healthy: boolean; reason: string | null };

/**
 * A real OpenAI-compatible embedding server: its vectors are the local embedder's (so search over
 * them works), and passages of `gated` models wait until the test opens the gate — the new
 * collection's build holds still, deterministically, for as long as the test looks at it (only text
 * ingested meanwhile is embedded at once: ingestion embeds with the new model too).
 */
function embeddingServer() {
  const vectors = createLocalEmbedder();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const gated = new Set<string>();
  return {
    gated,
    open: () => open(),
    script: async (request: RecordedRequest) => {
      if (request.path === '/v1/models')
        return { json: { object: 'list', data: [{ id: 'm1' }, { id: 'm2' }] } };
      const body = request.body as { model: string; input: string[]; input_type: string };
      if (request.path === '/v1/embeddings') {
        // What is ingested during the build (it mentions quokkas) is embedded at once.
        const ingestedNow = body.input.some((text) => text.includes('quokka'));
        if (body.input_type === 'passage' && gated.has(body.model) && !ingestedNow) await gate;
        const embedded = await vectors.embed(body.input, { kind: 'passage' });
        return embeddingsReply(embedded.map((vector) => [...vector]));
      }
      return { status: 404, json: { error: { message: 'no route' } } };
    },
  };
}

describe('switching the embedding model (blue-green vector collections)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: ScriptedServer;
  let model: ReturnType<typeof embeddingServer>;
  let app: TestApp | null = null;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'archivist-bluegreen-'));
    model = embeddingServer();
    server = await startScriptedServer(model.script);
  });
  afterEach(async () => {
    model.open();
    await app?.stop();
    app = null;
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const env = () => ({ DATA_DIR: dataDir, EVENT_STORE: 'file', MODEL_TIMEOUT_MS: '60000' });
  const remote = (name: string) => ({
    EMBEDDING_BASE_URL: `${server.url}/v1`,
    EMBEDDING_MODEL: name,
    EMBEDDING_DIMENSIONS: '384',
    EMBEDDING_INPUT_TYPE: 'input_type',
  });
  const activeRecord = (): ActiveCollection =>
    JSON.parse(readFileSync(join(dataDir, 'vectors', 'active.json'), 'utf8')) as ActiveCollection;
  const stats = async (running: TestApp): Promise<Stats> =>
    (await running.http.get('/api/v1/health/stats').expect(200)).body as Stats;
  const vectorStore = async (running: TestApp): Promise<Component> => {
    const ready = await running.http.get('/api/v1/health/ready');
    return (ready.body as { components: Component[] }).components.find((c) => c.name === 'vector_store')!;
  };
  const search = (running: TestApp, query: string) =>
    running.http.post('/api/v1/search').send({ query, top_k: 5 }).expect(200);

  /** Ingests two documents with the configuration `extra` and returns the collection they went to. */
  async function ingestWith(extra: Record<string, string>): Promise<{ stats: Stats; chunks: number }> {
    app = await startTestApp({ env: { ...env(), ...extra } });
    await uploadTextFixtures(app, 'readme.md', 'guide.rst');
    const before = await stats(app);
    const chunks = await app.runtime.knowledge.vectorIndex().count();
    expect(chunks).to.be.greaterThan(0);
    await app.stop();
    app = null;
    return { stats: before, chunks };
  }

  it('keeps searching the old collection (its local embedder is made again) while the new one builds, then switches and drops the old', async () => {
    const old = await ingestWith({});
    expect(activeRecord().collection).to.equal(old.stats.collection_name);

    model.gated.add('m1');
    app = await startTestApp({ env: { ...env(), ...remote('m1') } });
    const running = app;
    const target = running.runtime.knowledge.collections.target();
    expect(target).to.match(/^chunks_m1_384_[0-9a-f]{8}_v1$/);
    expect(target).to.not.equal(old.stats.collection_name);

    // Building: the new collection exists but holds nothing yet; search reads the old one only.
    expect(running.runtime.knowledge.collections.state()).to.equal('building');
    const during = await search(running, 'configuration file');
    expect(during.body.count).to.be.greaterThan(0);
    expect(during.headers['x-dense-retrieval']).to.equal(old.stats.collection_name);
    expect((await stats(running)).collection_name).to.equal(old.stats.collection_name);
    const building = await vectorStore(running);
    expect(building.healthy).to.equal(true);
    expect(building.reason).to.match(
      new RegExp(
        `^building ${target} \\d+% \\(\\d+ of \\d+ events\\); serving \\d+ vectors \\(${old.stats.collection_name}, embedded`,
      ),
    );
    const answer = await running.http.post('/api/v1/query').send({ question: 'Where is the configuration?' });
    expect(answer.body.timing.dense_retrieval).to.equal(old.stats.collection_name);
    // The old collection keeps following the log: a document ingested now is found in it.
    await running.http
      .post('/api/v1/upload')
      .attach('file', Buffer.from('Zanzibar quokkas migrate through the archive every spring.'), 'quokka.txt')
      .expect(200);
    const fresh = await search(running, 'Zanzibar quokkas');
    expect(fresh.headers['x-dense-retrieval']).to.equal(old.stats.collection_name);
    expect(fresh.body.results[0].source).to.match(/quokka\.txt$/);
    expect(activeRecord().collection).to.equal(old.stats.collection_name);

    model.open();
    const switched = await eventually(
      async () => ((await stats(running)).collection_name === target ? true : undefined),
      20_000,
      'the switch to the new collection',
    );
    expect(switched).to.equal(true);
    expect(activeRecord()).to.include({ collection: target, generation: 2 });
    await eventually(
      () => (existsSync(old.stats.vector_store_path) ? undefined : true),
      5_000,
      'the old folder removed',
    );
    expect(activeRecord().retired).to.deep.equal([]);
    expect(await running.runtime.knowledge.vectorIndex().count()).to.be.greaterThan(old.chunks);
    const after = await search(running, 'Zanzibar quokkas');
    expect(after.headers['x-dense-retrieval']).to.equal(target);
    expect(after.body.results[0].source).to.match(/quokka\.txt$/);
    const ready = await vectorStore(running);
    expect(ready.healthy).to.equal(true);
    expect(ready.reason).to.match(new RegExp(`^serving \\d+ vectors \\(${target}, embedded`));
  });

  it('searches lexical only while building when the old model can no longer embed queries, and says so', async () => {
    const old = await ingestWith(remote('m1'));
    const queriesBefore = server.requests.length;

    model.gated.add('m2');
    app = await startTestApp({ env: { ...env(), ...remote('m2') } });
    const running = app;
    const target = running.runtime.knowledge.collections.target();
    expect(target).to.match(/^chunks_m2_384_/);

    const during = await search(running, 'configuration file');
    expect(during.body.count).to.be.greaterThan(0);
    expect(during.headers['x-dense-retrieval']).to.match(
      new RegExp(`^off \\(the active collection ${old.stats.collection_name} holds vectors of m1-`),
    );
    const answer = await running.http.post('/api/v1/query').send({ question: 'Where is the configuration?' });
    expect(answer.body.timing.dense_retrieval).to.match(/^off \(/);
    expect(answer.body.timing.embedding).to.equal(0);
    // No query was embedded: with no complete collection to search, the embedder is not asked.
    const queries = server.requests
      .slice(queriesBefore)
      .filter((request) => (request.body as { input_type?: string } | null)?.input_type === 'query');
    expect(queries).to.have.length(0);
    const building = await vectorStore(running);
    expect(building.healthy).to.equal(false);
    expect(building.reason).to.match(new RegExp(`^building ${target} \\d+% .*; lexical only: `));

    model.open();
    await eventually(
      async () => ((await stats(running)).collection_name === target ? true : undefined),
      20_000,
      'the switch to the new collection',
    );
    await eventually(
      () => (existsSync(old.stats.vector_store_path) ? undefined : true),
      5_000,
      'old folder gone',
    );
    const after = await search(running, 'configuration file');
    expect(after.headers['x-dense-retrieval']).to.equal(target);
    expect(await running.runtime.knowledge.vectorIndex().count()).to.equal(old.chunks);
    expect((await vectorStore(running)).healthy).to.equal(true);
  });
});
