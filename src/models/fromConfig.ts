import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { ChatModel } from './chatModel.js';
import type { Embedder } from './embedder.js';
import { createExtractiveChatModel } from './extractiveChatModel.js';
import { createLocalEmbedder } from './localEmbedder.js';
import { createLocalReranker } from './localReranker.js';
import { createOpenAiChatModel } from './openAiChatModel.js';
import { createOpenAiEmbedder } from './openAiEmbedder.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './remoteCall.js';
import { createRemoteReranker } from './remoteReranker.js';
import type { Reranker } from './reranker.js';

export interface Models {
  embedder: Embedder;
  chatModel: ChatModel;
  /** Null when reranking is off. */
  reranker: Reranker | null;
}

type ModelConfig = Pick<
  Config,
  | 'openaiBaseUrl'
  | 'openaiApiKey'
  | 'llmModel'
  | 'llmMaxTokens'
  | 'modelTimeoutMs'
  | 'modelRetries'
  | 'embeddingModel'
  | 'embeddingBaseUrl'
  | 'embeddingApiKey'
  | 'embeddingDimensions'
  | 'embeddingRequestDimensions'
  | 'embeddingBatchSize'
  | 'embeddingInput'
  | 'reranker'
  | 'rerankerUrl'
  | 'rerankerModel'
  | 'rerankerFormat'
  | 'rerankerApiKey'
>;

/**
 * The models the configuration asks for: a remote adapter where one is configured, the local
 * default otherwise. Config validation already checked that each remote one has what it needs.
 */
export function createModels(config: ModelConfig, log: Logger): Models {
  const policy: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    attempts: config.modelRetries + 1,
    timeoutMs: config.modelTimeoutMs,
  };
  const embedder =
    config.embeddingModel && config.embeddingBaseUrl && config.embeddingDimensions
      ? createOpenAiEmbedder({
          baseUrl: config.embeddingBaseUrl,
          apiKey: config.embeddingApiKey,
          model: config.embeddingModel,
          dimensions: config.embeddingDimensions,
          requestDimensions: config.embeddingRequestDimensions,
          batchSize: config.embeddingBatchSize,
          marking: config.embeddingInput,
          policy,
          log: log.child({ component: 'embedder' }),
        })
      : createLocalEmbedder();
  const chatModel =
    config.llmModel && config.openaiBaseUrl
      ? createOpenAiChatModel({
          baseUrl: config.openaiBaseUrl,
          apiKey: config.openaiApiKey,
          model: config.llmModel,
          maxTokens: config.llmMaxTokens,
          policy,
          log: log.child({ component: 'llm' }),
        })
      : createExtractiveChatModel();
  let reranker: Reranker | null = null;
  if (config.reranker === 'local') reranker = createLocalReranker();
  if (config.reranker === 'remote' && config.rerankerUrl && config.rerankerModel) {
    reranker = createRemoteReranker({
      url: config.rerankerUrl,
      apiKey: config.rerankerApiKey,
      model: config.rerankerModel,
      format: config.rerankerFormat,
      policy,
      log: log.child({ component: 'reranker' }),
    });
  }
  log.info(
    { embedder: embedder.name, llm: chatModel.name, reranker: reranker?.name ?? 'off' },
    'models configured',
  );
  return { embedder, chatModel, reranker };
}
