import { expect } from 'chai';
import { ModelError } from '../../src/models/modelError.js';
import { createOpenAiEmbedder, type OpenAiEmbedderOptions } from '../../src/models/openAiEmbedder.js';
import { DEFAULT_RETRY_POLICY } from '../../src/models/remoteCall.js';
import { expectRejection } from '../support/expectRejection.js';
import {
  embeddingsReply,
  errorReply,
  inOrder,
  startScriptedServer,
  type Script,
  type ScriptedServer,
} from '../support/scriptedModelServer.js';

/** A 4-dimensional vector per text whose first value tells which text it was (its length). */
const vectorsFor = (input: unknown): number[][] => (input as string[]).map((text) => [text.length, 1, 0, 0]);
const echo: Script = (request) => embeddingsReply(vectorsFor((request.body as { input: unknown }).input));

describe('OpenAI-compatible embedder against a scripted server', () => {
  let server: ScriptedServer;
  let waits: number[];
  afterEach(async () => server.close());

  async function embedder(script: Script, options: Partial<OpenAiEmbedderOptions> = {}) {
    server = await startScriptedServer(script);
    waits = [];
    return createOpenAiEmbedder({
      baseUrl: `${server.url}/v1`,
      apiKey: 'secret',
      model: 'e5-test',
      dimensions: 4,
      requestDimensions: false,
      batchSize: 8,
      marking: { mode: 'none' },
      policy: { ...DEFAULT_RETRY_POLICY, timeoutMs: 5_000 },
      sleep: async (ms) => {
        waits.push(ms);
      },
      random: () => 0.5,
      ...options,
    });
  }

  const sent = () => server.requests.map((request) => request.body as Record<string, unknown>);

  it('posts the texts to /v1/embeddings asking for floats, with the key, and returns normalised vectors in order', async () => {
    const model = await embedder(echo);
    const vectors = await model.embed(['a', 'bbb'], { kind: 'passage' });
    expect(server.requests[0]).to.include({ method: 'POST', path: '/v1/embeddings' });
    expect(server.requests[0]!.headers['authorization']).to.equal('Bearer secret');
    expect(sent()[0]).to.deep.equal({ model: 'e5-test', input: ['a', 'bbb'], encoding_format: 'float' });
    expect(vectors.map((vector) => [...vector].map((x) => Number(x.toFixed(4))))).to.deep.equal([
      [0.7071, 0.7071, 0, 0],
      [0.9487, 0.3162, 0, 0],
    ]);
  });

  it('tells queries from passages by `input_type`, by prefix, or not at all, as configured', async () => {
    const typed = await embedder(echo, {
      marking: { mode: 'input_type', query: 'query', passage: 'passage' },
    });
    await typed.embed(['q'], { kind: 'query' });
    await typed.embed(['p'], { kind: 'passage' });
    expect(sent().map((body) => [body['input_type'], body['input']])).to.deep.equal([
      ['query', ['q']],
      ['passage', ['p']],
    ]);
    await server.close();

    const prefixed = await embedder(echo, {
      marking: { mode: 'prefix', query: 'query:', passage: 'passage:' },
    });
    await prefixed.embed(['how tall?'], { kind: 'query' });
    await prefixed.embed(['It is tall.'], { kind: 'passage' });
    expect(sent().map((body) => [body['input_type'], body['input']])).to.deep.equal([
      [undefined, ['query: how tall?']],
      [undefined, ['passage: It is tall.']],
    ]);
  });

  it('sends `dimensions` only when asked to', async () => {
    const model = await embedder(echo, { requestDimensions: true });
    await model.embed(['x'], { kind: 'query' });
    expect(sent()[0]).to.include({ dimensions: 4 });
  });

  it('splits inputs larger than the batch size into several requests, keeping the order', async () => {
    const model = await embedder(echo, { batchSize: 2 });
    expect(model.maxBatch).to.equal(2);
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee'];
    const vectors = await model.embed(texts, { kind: 'passage' });
    expect(sent().map((body) => body['input'])).to.deep.equal([['a', 'bb'], ['ccc', 'dddd'], ['eeeee']]);
    // Each vector's first value grows with its text's length: the order survived the batching.
    const firsts = vectors.map((vector) => vector[0]!);
    expect(firsts).to.deep.equal([...firsts].sort((a, b) => a - b));
  });

  it('puts vectors answered out of order back by their index', async () => {
    const model = await embedder(() => ({
      json: {
        data: [
          { index: 1, embedding: [0, 1, 0, 0] },
          { index: 0, embedding: [1, 0, 0, 0] },
        ],
      },
    }));
    const [first, second] = await model.embed(['a', 'b'], { kind: 'passage' });
    expect([...first!]).to.deep.equal([1, 0, 0, 0]);
    expect([...second!]).to.deep.equal([0, 1, 0, 0]);
  });

  it('refuses vectors of another size than configured, clearly, without retrying', async () => {
    const model = await embedder(() => embeddingsReply([[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]]));
    const error = await expectRejection(model.embed(['x'], { kind: 'query' }), ModelError);
    expect(error.code).to.equal('bad_response');
    expect(error.message).to.equal(
      'e5-test: embeddings failed: the model returns 6-dimensional vectors, 4 are configured ' +
        '(EMBEDDING_DIMENSIONS): vectors of another size cannot share the index',
    );
    expect(server.requests).to.have.length(1);
  });

  for (const [what, reply, message] of [
    [
      'a body that is not JSON',
      { text: '<html>proxy error</html>' },
      /the answer is not JSON: "<html>proxy error/,
    ],
    [
      'broken JSON',
      { text: '{"data": [', headers: { 'content-type': 'application/json' } },
      /unreadable answer/,
    ],
    ['no data list', { json: { object: 'list' } }, /the answer has no `data` list/],
    ['fewer vectors than texts', embeddingsReply([[1, 0, 0, 0]]), /2 texts were sent, 1 vectors came back/],
    [
      'a repeated index',
      {
        json: {
          data: [
            { index: 0, embedding: [1, 0, 0, 0] },
            { index: 0, embedding: [1, 0, 0, 0] },
          ],
        },
      },
      /index 0 is out of range or repeated/,
    ],
    [
      'base64 instead of floats',
      {
        json: {
          data: [
            { index: 0, embedding: 'AAAA' },
            { index: 1, embedding: 'AAAA' },
          ],
        },
      },
      /vector 0 is not a list of finite numbers/,
    ],
    [
      'a vector with a null in it',
      embeddingsReply([
        [1, 0, 0, 0],
        [1, null as unknown as number, 0, 0],
      ]),
      /vector 1 is not a list of finite numbers/,
    ],
  ] as const) {
    it(`reports ${what} as a bad response`, async () => {
      const model = await embedder(() => reply);
      const error = await expectRejection(model.embed(['a', 'b'], { kind: 'passage' }), ModelError);
      expect(error.code).to.equal('bad_response');
      expect(error.message).to.match(message);
      expect(server.requests).to.have.length(1);
    });
  }

  it('retries a 429 after the Retry-After the server gives, then succeeds', async () => {
    const model = await embedder(
      inOrder(errorReply(429, 'slow down', { 'retry-after': '2' }), embeddingsReply([[1, 0, 0, 0]])),
    );
    await model.embed(['x'], { kind: 'query' });
    expect(server.requests).to.have.length(2);
    expect(waits).to.deep.equal([2_000]);
  });

  it('retries 5xx with backoff and gives up after the policy’s attempts with the server’s message', async () => {
    const model = await embedder(() => errorReply(503, 'model loading'));
    const error = await expectRejection(model.embed(['x'], { kind: 'query' }), ModelError);
    expect(server.requests).to.have.length(3);
    expect(waits).to.deep.equal([375, 750]);
    expect(error).to.include({ code: 'unavailable', httpStatus: 503, attempts: 3 });
    expect(error.message).to.match(/^e5-test: embeddings failed: .*model loading.*\(after 3 attempts\)$/);
  });

  it('does not retry a rejection such as a wrong key', async () => {
    const model = await embedder(() => errorReply(401, 'invalid api key'));
    const error = await expectRejection(model.embed(['x'], { kind: 'query' }), ModelError);
    expect(error).to.include({ code: 'rejected', httpStatus: 401 });
    expect(server.requests).to.have.length(1);
  });

  it('times out an attempt that takes too long, without retrying it', async () => {
    const model = await embedder(() => ({ ...embeddingsReply([[1, 0, 0, 0]]), delayMs: 2_000 }), {
      policy: { ...DEFAULT_RETRY_POLICY, timeoutMs: 100 },
    });
    const error = await expectRejection(model.embed(['x'], { kind: 'query' }), ModelError);
    expect(error.code).to.equal('timeout');
    expect(error.message).to.equal('e5-test: embeddings got no answer within 100 ms');
    expect(server.requests).to.have.length(1);
  });

  it('stops when the caller aborts', async () => {
    const model = await embedder(() => ({ ...embeddingsReply([[1, 0, 0, 0]]), delayMs: 2_000 }));
    const controller = new AbortController();
    const pending = model.embed(['x'], { kind: 'query', signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect((await expectRejection(pending, ModelError)).code).to.equal('aborted');
  });

  it('retries a dropped connection and a refused one, then reports the server unavailable', async () => {
    const model = await embedder(inOrder({ drop: true }, embeddingsReply([[1, 0, 0, 0]])));
    await model.embed(['x'], { kind: 'query' });
    expect(server.requests).to.have.length(2);
    const url = server.url;
    // Started before the close, the replacement (for afterEach) cannot be given the port just freed.
    const replacement = await startScriptedServer(echo);
    await server.close();
    server = replacement;
    const refused = createOpenAiEmbedder({
      baseUrl: `${url}/v1`,
      apiKey: '',
      model: 'e5-test',
      dimensions: 4,
      requestDimensions: false,
      batchSize: 8,
      marking: { mode: 'none' },
      policy: DEFAULT_RETRY_POLICY,
      sleep: async () => {},
    });
    const error = await expectRejection(refused.embed(['x'], { kind: 'query' }), ModelError);
    expect(error).to.include({ code: 'unavailable', attempts: 3 });
    expect(error.message).to.match(/no connection/);
  });

  it('probes the model list (cheap, and not queued behind embeddings), caching the result', async () => {
    const listing: Script = (request) =>
      request.path === '/v1/models' ? { json: { object: 'list', data: [{ id: 'e5-test' }] } } : echo(request);
    const healthy = await embedder(listing);
    expect(await healthy.probe()).to.deep.equal({ healthy: true, reason: null });
    await healthy.probe();
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).to.deep.equal([
      'GET /v1/models',
    ]);
    await server.close();

    const other = await embedder(() => ({
      json: { object: 'list', data: [{ id: 'bge-m3' }, { id: 'e5-large' }] },
    }));
    expect(await other.probe()).to.deep.equal({
      healthy: false,
      reason: `e5-test is not among the models at ${server.url}/v1: bge-m3, e5-large`,
    });
  });

  it('probes a server without a model list with one tiny embedding, which also checks the size', async () => {
    const unlisted =
      (vector: number[]): Script =>
      (request) =>
        request.path === '/v1/models' ? errorReply(404, 'unknown route') : embeddingsReply([vector]);
    const right = await embedder(unlisted([1, 0, 0, 0]));
    expect(await right.probe()).to.deep.equal({ healthy: true, reason: null });
    expect(server.requests.map((request) => request.path)).to.deep.equal(['/v1/models', '/v1/embeddings']);
    await server.close();

    const wrongSize = await embedder(unlisted([1, 0]));
    const probe = await wrongSize.probe();
    expect(probe.healthy).to.equal(false);
    expect(probe.reason).to.match(/returns 2-dimensional vectors, 4 are configured/);
  });

  it('probes once, without retrying: an outage is reported, not waited out', async () => {
    const down = await embedder(() => errorReply(503, 'overloaded'));
    const probe = await down.probe();
    expect(probe.healthy).to.equal(false);
    expect(probe.reason).to.match(/^e5-test: model list failed: .*overloaded/);
    expect(server.requests).to.have.length(1);
  });

  it('is named by the model id, and keys its vectors by model, size and input convention', async () => {
    server = await startScriptedServer(echo);
    const options: OpenAiEmbedderOptions = {
      baseUrl: `${server.url}/v1`,
      apiKey: '',
      model: 'e5-test',
      dimensions: 4,
      requestDimensions: false,
      batchSize: 8,
      marking: { mode: 'none' },
      policy: DEFAULT_RETRY_POLICY,
    };
    const space = (changes: Partial<OpenAiEmbedderOptions>): string =>
      createOpenAiEmbedder({ ...options, ...changes }).space;
    const base = createOpenAiEmbedder(options);
    expect(base.name).to.equal('e5-test');
    expect(base.space).to.match(/^e5-test-4-[0-9a-f]{8}$/);
    const spaces = new Set([
      base.space,
      space({ dimensions: 8 }),
      space({ marking: { mode: 'prefix', query: 'query:', passage: 'passage:' } }),
      space({ marking: { mode: 'prefix', query: 'search_query:', passage: 'search_document:' } }),
      space({ model: 'e5-other' }),
    ]);
    expect(spaces.size).to.equal(5);
    // What does not change the vectors does not change the key.
    expect(space({ requestDimensions: true, batchSize: 1, baseUrl: 'http://elsewhere/v1' })).to.equal(
      base.space,
    );
    const long = space({ model: 'sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2' });
    expect(long.length).to.be.at.most(40);
  });
});
