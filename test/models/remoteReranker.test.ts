import { expect } from 'chai';
import { ModelError } from '../../src/models/modelError.js';
import { DEFAULT_RETRY_POLICY } from '../../src/models/remoteCall.js';
import { createRemoteReranker, type RemoteRerankerOptions } from '../../src/models/remoteReranker.js';
import type { Reranker } from '../../src/models/reranker.js';
import { expectRejection } from '../support/expectRejection.js';
import {
  errorReply,
  startScriptedServer,
  type RecordedRequest,
  type Script,
  type ScriptedServer,
} from '../support/scriptedModelServer.js';

/** A scripted cross-encoder: a passage scores by how many of the query's words it holds. */
function overlap(query: string, passage: string): number {
  const asked = new Set(query.toLowerCase().match(/\w+/g));
  return (passage.toLowerCase().match(/\w+/g) ?? []).filter((word) => asked.has(word)).length / 10;
}

/** Answers in each format, sorted by relevance as the real services do (not in input order). */
const scripts: Record<RemoteRerankerOptions['format'], Script> = {
  cohere: ({ body }: RecordedRequest) => {
    const { query, documents } = body as { query: string; documents: string[] };
    const results = documents
      .map((text, index) => ({ index, relevance_score: overlap(query, text) }))
      .sort((a, b) => b.relevance_score - a.relevance_score);
    return { json: { id: 'r-1', results, meta: { billed_units: { search_units: 1 } } } };
  },
  jina: ({ body }: RecordedRequest) => {
    const { query, documents } = body as { query: string; documents: string[] };
    const results = documents
      .map((text, index) => ({ index, relevance_score: overlap(query, text), document: { text } }))
      .sort((a, b) => b.relevance_score - a.relevance_score);
    return { json: { model: 'jina-reranker-v2', usage: { total_tokens: 10 }, results } };
  },
  tei: ({ body }: RecordedRequest) => {
    const { query, texts } = body as { query: string; texts: string[] };
    return {
      json: texts
        .map((text, index) => ({ index, score: overlap(query, text) }))
        .sort((a, b) => b.score - a.score),
    };
  },
};

const PASSAGES = ['The cat sat.', 'Opening hours of the library on Saturday', 'Library cards are free.'];

describe('remote reranker against a scripted server', () => {
  // No reranker weights can be had from any registry here, so this adapter never meets a real
  // model in the test suite: its wire handling is tested against scripted answers in each format.
  it(
    'against a real reranker model — skipped: no reranker model can run here; wire format tested against a scripted server',
  );

  let server: ScriptedServer;
  let waits: number[];
  afterEach(async () => server.close());

  async function reranker(script: Script, options: Partial<RemoteRerankerOptions> = {}): Promise<Reranker> {
    server = await startScriptedServer(script);
    waits = [];
    return createRemoteReranker({
      url: `${server.url}/v1/rerank`,
      apiKey: 'rerank-key',
      model: 'rerank-test',
      format: 'cohere',
      policy: { ...DEFAULT_RETRY_POLICY, timeoutMs: 5_000 },
      sleep: async (ms) => {
        waits.push(ms);
      },
      random: () => 0,
      ...options,
    });
  }

  it('speaks Cohere’s format: {model, query, documents, top_n} in, results by index out', async () => {
    const model = await reranker(scripts.cohere);
    const scores = await model.rerank('library opening hours Saturday', PASSAGES);
    expect(server.requests[0]).to.include({ method: 'POST', path: '/v1/rerank' });
    expect(server.requests[0]!.headers['authorization']).to.equal('Bearer rerank-key');
    expect(server.requests[0]!.body).to.deep.equal({
      model: 'rerank-test',
      query: 'library opening hours Saturday',
      documents: PASSAGES,
      top_n: 3,
      return_documents: false,
    });
    expect(scores).to.deep.equal([0, 0.4, 0.1]);
  });

  it('speaks Jina’s format, ignoring the documents it echoes', async () => {
    const model = await reranker(scripts.jina, { format: 'jina' });
    expect(await model.rerank('library opening hours Saturday', PASSAGES)).to.deep.equal([0, 0.4, 0.1]);
    expect(server.requests[0]!.body).to.include({ model: 'rerank-test', top_n: 3 });
  });

  it('speaks TEI’s format: {query, texts} in, a bare list of {index, score} out', async () => {
    const model = await reranker(scripts.tei, { format: 'tei', apiKey: '' });
    expect(await model.rerank('library opening hours Saturday', PASSAGES)).to.deep.equal([0, 0.4, 0.1]);
    expect(server.requests[0]!.body).to.deep.equal({
      query: 'library opening hours Saturday',
      texts: PASSAGES,
      truncate: true,
      return_text: false,
    });
    expect(server.requests[0]!.headers['authorization']).to.equal(undefined);
  });

  it('splits many passages into batches the server accepts, scores in the passages’ order', async () => {
    const model = await reranker(scripts.tei, { format: 'tei', batchSize: 2 });
    const passages = ['a b c', 'a', 'z', 'a b', 'a b c d'];
    expect(await model.rerank('a b c d', passages)).to.deep.equal([0.3, 0.1, 0, 0.2, 0.4]);
    expect(server.requests.map((request) => (request.body as { texts: string[] }).texts)).to.deep.equal([
      ['a b c', 'a'],
      ['z', 'a b'],
      ['a b c d'],
    ]);
  });

  for (const [what, json, message] of [
    ['no results list', { data: [] }, /the answer has no `results` list/],
    [
      'a passage left unscored',
      { results: [{ index: 0, relevance_score: 0.5 }] },
      /2 of 3 passages came back unscored/,
    ],
    [
      'an index out of range',
      { results: [{ index: 7, relevance_score: 0.5 }] },
      /result index 7 is not one of the 3 passages/,
    ],
    [
      'a passage scored twice',
      { results: [0, 0, 1].map((index) => ({ index, relevance_score: 1 })) },
      /passage 0 is scored twice/,
    ],
    [
      'a score that is not a number',
      { results: [0, 1, 2].map((index) => ({ index, relevance_score: 'high' })) },
      /passage 0 has no numeric score/,
    ],
  ] as const) {
    it(`reports ${what} as a bad response, not a silently shuffled ranking`, async () => {
      const model = await reranker(() => ({ json }));
      const error = await expectRejection(model.rerank('q', PASSAGES), ModelError);
      expect(error.code).to.equal('bad_response');
      expect(error.message).to.match(message);
      expect(server.requests).to.have.length(1);
    });
  }

  it('reports an answer that is not JSON', async () => {
    const model = await reranker(() => ({ text: 'Bad Gateway' }));
    const error = await expectRejection(model.rerank('q', PASSAGES), ModelError);
    expect(error.code).to.equal('bad_response');
    expect(error.message).to.equal('rerank-test: rerank failed: the answer is not JSON: "Bad Gateway"');
  });

  it('retries 429 after Retry-After and 5xx with backoff, under the shared policy', async () => {
    const failures = [errorReply(429, 'too many', { 'retry-after': '3' }), errorReply(502, 'bad gateway')];
    const model = await reranker((request) => failures.shift() ?? scripts.cohere(request));
    expect(await model.rerank('q', ['q', 'x', 'y'])).to.deep.equal([0.1, 0, 0]);
    expect(server.requests).to.have.length(3);
    expect(waits).to.deep.equal([3_000, 500]);
  });

  it('does not retry a rejection, quoting what the server said', async () => {
    const model = await reranker(() => ({
      status: 422,
      json: { detail: 'batch size 100 > maximum allowed batch size 32' },
    }));
    const error = await expectRejection(model.rerank('q', PASSAGES), ModelError);
    expect(error).to.include({ code: 'rejected', httpStatus: 422 });
    expect(error.message).to.equal(
      'rerank-test: rerank failed: HTTP 422: batch size 100 > maximum allowed batch size 32',
    );
    expect(server.requests).to.have.length(1);
  });

  it('times out and reports a refused connection as unavailable', async () => {
    const slow = await reranker(() => ({ delayMs: 2_000, json: { results: [] } }), {
      policy: { ...DEFAULT_RETRY_POLICY, timeoutMs: 80 },
    });
    expect((await expectRejection(slow.rerank('q', ['q']), ModelError)).code).to.equal('timeout');
    const url = server.url;
    // Started before the close, the replacement (for afterEach) cannot be given the port just freed.
    const replacement = await startScriptedServer(scripts.cohere);
    await server.close();
    server = replacement;
    const refused = createRemoteReranker({
      url: `${url}/v1/rerank`,
      apiKey: '',
      model: 'rerank-test',
      format: 'cohere',
      policy: DEFAULT_RETRY_POLICY,
      sleep: async () => {},
    });
    const error = await expectRejection(refused.rerank('q', ['q']), ModelError);
    expect(error).to.include({ code: 'unavailable', attempts: 3 });
  });

  it('probes with one tiny pair, once, and is named by its model', async () => {
    const model = await reranker(scripts.tei, { format: 'tei', model: 'bge-reranker-v2-m3' });
    expect(model.name).to.equal('bge-reranker-v2-m3');
    expect(await model.probe()).to.deep.equal({ healthy: true, reason: null });
    await model.probe();
    expect(server.requests).to.have.length(1);
    await server.close();
    const down = await reranker(() => errorReply(503, 'loading'));
    const probe = await down.probe();
    expect(probe.healthy).to.equal(false);
    expect(probe.reason).to.match(/^rerank-test: rerank failed: HTTP 503: loading$/);
    expect(server.requests).to.have.length(1);
  });
});
