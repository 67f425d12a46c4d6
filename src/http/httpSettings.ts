import { ConfigError, defineSettings, integer, text } from '../configuration/variable.js';

const HOST = text('HOST', { default: '127.0.0.1', meaning: 'Interface the HTTP server listens on.' });
const PORT = integer('PORT', {
  default: '8000',
  min: 0,
  max: 65_535,
  meaning: 'HTTP port (both APIs, docs and OpenAPI).',
});
const METRICS_PORT = integer('METRICS_PORT', {
  default: '0',
  min: 0,
  max: 65_535,
  meaning:
    'Port on HOST where a process without the API (archivist worker, archivist project) serves GET /metrics for Prometheus, guarded like the API’s; 0: none. The API serves /metrics on PORT.',
});
const MAX_JSON_BYTES = integer('MAX_JSON_BYTES', {
  default: '1048576',
  min: 1_024,
  max: 1_073_741_824,
  meaning: 'Largest JSON request body (413 above).',
});
const HTTP_HEADERS_TIMEOUT_MS = integer('HTTP_HEADERS_TIMEOUT_MS', {
  default: '20000',
  min: 100,
  max: 3_600_000,
  meaning: 'A client must send its request headers within this time, or the connection is closed.',
});
const HTTP_BODY_IDLE_TIMEOUT_MS = integer('HTTP_BODY_IDLE_TIMEOUT_MS', {
  default: '30000',
  min: 100,
  max: 3_600_000,
  meaning: 'An upload that sends nothing for this long is dropped (408), its temporary files removed.',
});
const HTTP_REQUEST_TIMEOUT_MS = integer('HTTP_REQUEST_TIMEOUT_MS', {
  default: '300000',
  min: 100,
  max: 86_400_000,
  meaning: 'A whole request (headers and body, not the response) must arrive within this time (408 above).',
});
const SSE_KEEPALIVE_MS = integer('SSE_KEEPALIVE_MS', {
  default: '15000',
  min: 10,
  max: 3_600_000,
  meaning:
    'An idle Server-Sent Events stream (event log, task events, streamed parsing) sends a comment line this often, so proxies keep it open.',
});
const READ_YOUR_WRITES_TIMEOUT_MS = integer('READ_YOUR_WRITES_TIMEOUT_MS', {
  default: '2000',
  min: 0,
  max: 60_000,
  meaning: 'How long a write waits for the read models that serve the next read.',
});

/** The HTTP server: where it listens, how much and how long it waits for a request, how it keeps streams open. */
export const httpSettings = defineSettings(
  [
    HOST,
    PORT,
    METRICS_PORT,
    MAX_JSON_BYTES,
    HTTP_HEADERS_TIMEOUT_MS,
    HTTP_BODY_IDLE_TIMEOUT_MS,
    HTTP_REQUEST_TIMEOUT_MS,
    SSE_KEEPALIVE_MS,
    READ_YOUR_WRITES_TIMEOUT_MS,
  ],
  (env) => {
    const headersTimeoutMs = HTTP_HEADERS_TIMEOUT_MS.read(env);
    const requestTimeoutMs = HTTP_REQUEST_TIMEOUT_MS.read(env);
    if (headersTimeoutMs > requestTimeoutMs) {
      throw new ConfigError(
        `HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
      );
    }
    return {
      host: HOST.read(env),
      port: PORT.read(env),
      /** Where a worker or projector process serves `/metrics`; 0 for none. */
      metricsPort: METRICS_PORT.read(env),
      maxJsonBytes: MAX_JSON_BYTES.read(env),
      /** Longest wait for a request's headers. */
      headersTimeoutMs,
      /** Longest silence while a request body is arriving. */
      bodyIdleTimeoutMs: HTTP_BODY_IDLE_TIMEOUT_MS.read(env),
      /** Longest time to receive a whole request (headers and body). */
      requestTimeoutMs,
      /** How often an idle Server-Sent Events stream sends a comment line. */
      sseKeepAliveMs: SSE_KEEPALIVE_MS.read(env),
      readYourWritesTimeoutMs: READ_YOUR_WRITES_TIMEOUT_MS.read(env),
    };
  },
);
