import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { createModels } from '../../src/models/fromConfig.js';
import { silentLogger } from '../../src/log.js';

describe('model configuration', () => {
  it('defaults to the local models, reranking off', () => {
    const config = loadConfig({});
    expect(config).to.include({ embeddingModel: null, llmModel: null, reranker: 'off', modelRetries: 2 });
    const models = createModels(config, silentLogger);
    expect(models.embedder.name).to.equal('local-hashed-ngrams-384');
    expect(models.chatModel.name).to.equal('local-extractive');
    expect(models.reranker).to.equal(null);
  });

  it('builds the remote adapters the variables name, each named by its model', () => {
    const config = loadConfig({
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      LLM_MODEL: 'qwen2.5:7b',
      EMBEDDING_MODEL: 'bge-m3',
      EMBEDDING_BASE_URL: 'http://127.0.0.1:10/v1',
      EMBEDDING_DIMENSIONS: '1024',
      RERANKER: 'remote',
      RERANKER_URL: 'http://127.0.0.1:11/rerank',
      RERANKER_MODEL: 'bge-reranker-v2-m3',
      RERANKER_FORMAT: 'tei',
    });
    const models = createModels(config, silentLogger);
    expect(models.embedder).to.include({ name: 'bge-m3', dimensions: 1024, maxBatch: 32 });
    expect(models.chatModel.name).to.equal('qwen2.5:7b');
    expect(models.reranker?.name).to.equal('bge-reranker-v2-m3');
  });

  it('takes the embedding endpoint and key from OPENAI_* unless given its own', () => {
    const config = loadConfig({
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_API_KEY: 'shared',
      EMBEDDING_MODEL: 'text-embedding-3-small',
      EMBEDDING_DIMENSIONS: '512',
      EMBEDDING_REQUEST_DIMENSIONS: 'true',
    });
    expect(config).to.include({
      embeddingBaseUrl: 'http://127.0.0.1:9/v1',
      embeddingApiKey: 'shared',
      embeddingRequestDimensions: true,
    });
  });

  it('marks queries and passages by input_type or prefix, E5 values by default', () => {
    expect(loadConfig({ EMBEDDING_INPUT_TYPE: 'input_type' }).embeddingInput).to.deep.equal({
      mode: 'input_type',
      query: 'query',
      passage: 'passage',
    });
    expect(loadConfig({ EMBEDDING_INPUT_TYPE: 'prefix' }).embeddingInput).to.deep.equal({
      mode: 'prefix',
      query: 'query:',
      passage: 'passage:',
    });
    expect(
      loadConfig({
        EMBEDDING_INPUT_TYPE: 'prefix',
        EMBEDDING_QUERY_INPUT: 'search_query:',
        EMBEDDING_PASSAGE_INPUT: 'search_document:',
      }).embeddingInput,
    ).to.deep.equal({ mode: 'prefix', query: 'search_query:', passage: 'search_document:' });
    expect(loadConfig({}).embeddingInput).to.deep.equal({ mode: 'none' });
  });

  it('keeps RERANKER_ENABLED=true working as RERANKER=local, and refuses a contradiction', () => {
    expect(loadConfig({ RERANKER_ENABLED: 'true' }).reranker).to.equal('local');
    expect(
      loadConfig({
        RERANKER_ENABLED: 'true',
        RERANKER: 'remote',
        RERANKER_URL: 'http://x/rerank',
        RERANKER_MODEL: 'm',
      }).reranker,
    ).to.equal('remote');
    expect(() => loadConfig({ RERANKER_ENABLED: 'true', RERANKER: 'off' })).to.throw(
      'RERANKER_ENABLED=true contradicts RERANKER=off',
    );
    expect(createModels(loadConfig({ RERANKER: 'local' }), silentLogger).reranker?.name).to.equal(
      'local-term-proximity',
    );
  });

  it('refuses incomplete remote settings, naming what is missing', () => {
    expect(() => loadConfig({ LLM_MODEL: 'llama3' })).to.throw(
      'OPENAI_BASE_URL is required when LLM_MODEL is set',
    );
    expect(() => loadConfig({ EMBEDDING_MODEL: 'e5', EMBEDDING_DIMENSIONS: '384' })).to.throw(
      'EMBEDDING_BASE_URL (or OPENAI_BASE_URL) is required when EMBEDDING_MODEL is set',
    );
    expect(() => loadConfig({ EMBEDDING_MODEL: 'e5', OPENAI_BASE_URL: 'http://x/v1' })).to.throw(
      'EMBEDDING_DIMENSIONS is required when EMBEDDING_MODEL is set',
    );
    expect(() => loadConfig({ RERANKER: 'remote', RERANKER_MODEL: 'm' })).to.throw(
      'RERANKER_URL is required when RERANKER=remote',
    );
    expect(() => loadConfig({ RERANKER: 'remote', RERANKER_URL: 'http://x/rerank' })).to.throw(
      'RERANKER_MODEL is required when RERANKER=remote',
    );
    expect(() => loadConfig({ RERANKER_FORMAT: 'openai' })).to.throw(
      'RERANKER_FORMAT must be one of cohere, jina, tei',
    );
    expect(() => loadConfig({ EMBEDDING_INPUT_TYPE: 'instruction' })).to.throw(
      'EMBEDDING_INPUT_TYPE must be one of none, input_type, prefix',
    );
  });
});
