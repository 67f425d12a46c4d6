import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createLocalEmbedder } from '../../src/models/localEmbedder.js';
import { eventually, startTestApp, type TestApp } from '../support/testApp.js';
import {
  embeddingsReply,
  startScriptedServer,
  type RecordedRequest,
  type Script,
  type ScriptedServer,
} from '../support/scriptedModelServer.js';

const readme = (): Promise<Buffer> =>
  readFile(join(import.meta.dirname, '..', 'fixtures', 'documents', 'text', 'readme.md'));
const ANSWER = 'The configuration lives in config.toml [1].';

/**
 * One server for all three remote models. Its embeddings are the local embedder's vectors (a real
 * component, so search over them works); its chat model answers one scripted sentence.
 */
const localVectors = createLocalEmbedder();
const models: Script = async (request: RecordedRequest) => {
  if (request.path === '/v1/models') {
    return { json: { object: 'list', data: [{ id: 'e5-wire' }, { id: 'chat-wire' }] } };
  }
  if (request.path === '/v1/embeddings') {
    const input = (request.body as { input: string[] }).input;
    const vectors = await localVectors.embed(input, { kind: 'passage' });
    return embeddingsReply(vectors.map((vector) => [...vector]));
  }
  if (request.path === '/v1/chat/completions') {
    return {
      json: {
        id: 'c',
        object: 'chat.completion',
        created: 0,
        model: 'chat-wire',
        choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 300, completion_tokens: 9, total_tokens: 309 },
      },
    };
  }
  if (request.path === '/rerank') {
    // Prefers later passages: a ranking the fused order would not give, to see it applied.
    const { documents } = request.body as { documents: string[] };
    return { json: { results: documents.map((_, index) => ({ index, relevance_score: index })) } };
  }
  return { status: 404, json: { error: { message: 'no route' } } };
};

describe('models picked by configuration', () => {
  let server: ScriptedServer;
  let app: TestApp | null = null;
  beforeEach(async () => {
    server = await startScriptedServer(models);
  });
  afterEach(async () => {
    await app?.stop();
    app = null;
    await server.close();
  });

  const remoteEnv = () => ({
    OPENAI_BASE_URL: `${server.url}/v1`,
    LLM_MODEL: 'chat-wire',
    EMBEDDING_MODEL: 'e5-wire',
    EMBEDDING_DIMENSIONS: '384',
    EMBEDDING_INPUT_TYPE: 'input_type',
    RERANKER: 'remote',
    RERANKER_URL: `${server.url}/rerank`,
    RERANKER_MODEL: 'rerank-wire',
  });
  const sent = (path: string) => server.requests.filter((request) => request.path === path);

  it('reports the remote models by name in /health/stats and by their probes in /health/ready', async () => {
    app = await startTestApp({ env: remoteEnv() });
    const stats = await app.http.get('/api/v1/health/stats').expect(200);
    expect(stats.body).to.include({
      embedding_model: 'e5-wire',
      llm_model: 'chat-wire',
      reranker_enabled: true,
      reranker_model: 'rerank-wire',
    });
    expect(stats.body.collection_name).to.match(/^chunks_e5_wire_384_[0-9a-f]{8}_v1$/);
    const ready = await app.http.get('/api/v1/health/ready').expect(200);
    const components = Object.fromEntries(
      (ready.body.components as Array<{ name: string; healthy: boolean; reason: string }>).map((c) => [
        c.name,
        c,
      ]),
    );
    expect(components['embedder']).to.include({ healthy: true, reason: 'e5-wire' });
    expect(components['llm']).to.include({ healthy: true, reason: 'chat-wire' });
    expect(components['reranker']).to.include({ healthy: true, reason: 'rerank-wire' });
  });

  it('embeds passages and queries remotely (told apart), reranks remotely, and answers with the remote chat model', async () => {
    app = await startTestApp({ env: remoteEnv() });
    await app.http
      .post('/api/v1/upload')
      .attach('file', await readme(), 'readme.md')
      .expect(200);
    const ingest = sent('/v1/embeddings');
    expect(ingest.length).to.be.greaterThan(0);
    expect(
      ingest.every((request) => (request.body as { input_type: string }).input_type === 'passage'),
    ).to.equal(true);

    const query = await app.http
      .post('/api/v1/query')
      .send({ question: 'Where does the configuration file live?', top_k: 2 })
      .expect(200);
    expect(query.body.answer).to.equal(ANSWER);
    expect(query.body.tokens_used).to.deep.equal({ input: 300, output: 9, total: 309 });
    expect((sent('/v1/embeddings').at(-1)!.body as { input_type: string }).input_type).to.equal('query');
    const chat = sent('/v1/chat/completions')[0]!.body as {
      model: string;
      messages: Array<{ content: string }>;
    };
    expect(chat.model).to.equal('chat-wire');
    expect(chat.messages.at(-1)!.content).to.match(/Question: Where does the configuration file live\?$/);
    // The remote reranker scored every candidate and its order decided the sources.
    const rerank = sent('/rerank')[0]!.body as { model: string; documents: string[] };
    expect(rerank.model).to.equal('rerank-wire');
    const top = query.body.sources.map((source: { score: number }) => source.score);
    expect(top[0]).to.equal(rerank.documents.length - 1);
  });

  it('says why a model is not ready, and searches lexical only while it cannot be reached, saying so', async () => {
    const url = server.url;
    // The replacement (for afterEach) listens before the first one closes: started after, it could
    // be given the port just freed, and the model would be reachable there after all.
    const replacement = await startScriptedServer(models);
    await server.close();
    server = replacement;
    app = await startTestApp({
      env: {
        EMBEDDING_MODEL: 'e5-wire',
        EMBEDDING_BASE_URL: `${url}/v1`,
        EMBEDDING_DIMENSIONS: '384',
        MODEL_RETRIES: '0',
        READY_REQUIRES: 'embedder',
      },
    });
    const ready = await app.http.get('/api/v1/health/ready').expect(503);
    const embedder = (
      ready.body.components as Array<{ name: string; healthy: boolean; reason: string }>
    ).find((c) => c.name === 'embedder');
    expect(embedder?.healthy).to.equal(false);
    expect(embedder?.reason).to.match(/^e5-wire: model list failed: no connection/);
    const search = await app.http.post('/api/v1/search').send({ query: 'anything' }).expect(200);
    expect(search.headers['x-dense-retrieval']).to.match(/^off \(embedder unavailable, lexical only: /);
  });

  it('answers 502 when a model refuses, without passing on its status or its words', async () => {
    const refusing = await startScriptedServer((request) =>
      request.path === '/v1/chat/completions'
        ? { status: 401, json: { error: { message: 'Incorrect API key provided: sk-abc…xyz' } } }
        : models(request),
    );
    try {
      app = await startTestApp({ env: { OPENAI_BASE_URL: `${refusing.url}/v1`, LLM_MODEL: 'chat-wire' } });
      const query = await app.http.post('/api/v1/query').send({ question: 'Anything?' }).expect(502);
      expect(query.body).to.include({
        error: 'model_error',
        detail: 'A model failed (rejected); see the server log',
      });
      expect(refusing.requests.filter((request) => request.path === '/v1/chat/completions')).to.have.length(
        1,
      );
    } finally {
      await refusing.close();
    }
  });

  it('builds a new vector collection beside the old when the embedding model changes, switches to it and drops the old; back again, nothing is embedded twice', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'archivist-models-'));
    const env = { DATA_DIR: dataDir, EVENT_STORE: 'file' };
    type Stats = { collection_name: string; vector_store_path: string };
    try {
      app = await startTestApp({ env });
      await app.http
        .post('/api/v1/upload')
        .attach('file', await readme(), 'readme.md')
        .expect(200);
      const local = (await app.http.get('/api/v1/health/stats')).body as Stats;
      const chunks = await app.runtime.knowledge.vectorIndex().count();
      await app.stop();

      /** Starts with `extra` configured and waits until its collection has replaced the active one. */
      const switched = async (extra: Record<string, string>, from: Stats): Promise<Stats> => {
        app = await startTestApp({ env: { ...env, ...extra } });
        const running = app;
        const stats = await eventually(
          async () => {
            const body = (await running.http.get('/api/v1/health/stats')).body as Stats;
            return body.collection_name !== from.collection_name ? body : undefined;
          },
          15_000,
          'the switch to the new collection',
        );
        expect(await running.runtime.knowledge.vectorIndex().count()).to.equal(chunks);
        const search = await running.http
          .post('/api/v1/search')
          .send({ query: 'configuration file' })
          .expect(200);
        expect(search.body.count).to.be.greaterThan(0);
        expect(search.headers['x-dense-retrieval']).to.equal(stats.collection_name);
        // The old collection is dropped once the new one serves.
        await eventually(
          () => (existsSync(from.vector_store_path) ? undefined : true),
          5_000,
          'the old folder gone',
        );
        await running.stop();
        return stats;
      };
      const remote = await switched(remoteEnv(), local);
      const passagesEmbedded = sent('/v1/embeddings').filter(
        (request) => (request.body as { input_type: string }).input_type === 'passage',
      ).length;
      expect(passagesEmbedded).to.be.greaterThan(0);

      // Back to the local model: its collection is built again (from the cache), then serves.
      const again = await switched({}, remote);
      expect(again.collection_name).to.equal(local.collection_name);

      // And to the remote one again: its vectors come from the embedding cache, none recomputed.
      await switched(remoteEnv(), again);
      expect(
        sent('/v1/embeddings').filter(
          (request) => (request.body as { input_type: string }).input_type === 'passage',
        ),
      ).to.have.length(passagesEmbedded);
      app = null;
    } finally {
      await app?.stop();
      app = null;
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
