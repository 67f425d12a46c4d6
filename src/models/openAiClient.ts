import type OpenAI from 'openai';
import type * as OpenAiModule from 'openai';
import { codeForStatus, ModelError, parseRetryAfter, rootCause } from './modelError.js';
import type { RemoteCaller } from './remoteCall.js';

export interface OpenAiEndpoint {
  baseUrl: string;
  /** Empty for local servers (Ollama, llama.cpp, vLLM) that need none. */
  apiKey: string;
  timeoutMs: number;
}

type Sdk = typeof OpenAiModule;
let sdk: Sdk | null = null;

/**
 * The OpenAI SDK, loaded on first use: the local models (the default) never need it, and it is the
 * largest module tree a process would otherwise load at start.
 */
export async function openAiSdk(): Promise<Sdk> {
  return (sdk ??= await import('openai'));
}

/** A client of one endpoint: `client()` gives it, made on first use. */
export interface OpenAiClient {
  readonly baseUrl: string;
  (): Promise<OpenAI>;
}

/**
 * A client for any OpenAI-compatible endpoint, set up the way every model adapter here wants it: one
 * attempt per call (retries are the adapters' own policy, see remoteCall.ts, or the caller's local
 * fallback), and a placeholder key for servers that take none (the SDK refuses an empty one).
 */
export function createOpenAiClient(endpoint: OpenAiEndpoint): OpenAiClient {
  let client: Promise<OpenAI> | null = null;
  const made = (): Promise<OpenAI> =>
    (client ??= openAiSdk().then(
      ({ default: OpenAI }) =>
        new OpenAI({
          baseURL: endpoint.baseUrl,
          apiKey: endpoint.apiKey || 'no-key',
          timeout: endpoint.timeoutMs,
          maxRetries: 0,
        }),
    ));
  return Object.assign(made, { baseUrl: endpoint.baseUrl });
}

/** The vendor edge for errors: what the OpenAI SDK threw, as a ModelError. */
export function translateOpenAiError(error: unknown): ModelError {
  if (error instanceof ModelError) return error;
  // Only a loaded SDK throws its own errors.
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = sdk ?? {};
  if (!APIConnectionError || !APIConnectionTimeoutError || !APIError || !APIUserAbortError) {
    return unreadable(error);
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelError('timeout', 'the request timed out', { cause: error });
  }
  if (error instanceof APIUserAbortError) return new ModelError('aborted', 'aborted', { cause: error });
  if (error instanceof APIConnectionError) {
    return new ModelError('unavailable', `no connection (${rootCause(error)})`, { cause: error });
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const retryAfterMs = error.headers ? parseRetryAfter(error.headers) : null;
    return new ModelError(codeForStatus(error.status), error.message || `HTTP ${error.status}`, {
      httpStatus: error.status,
      ...(retryAfterMs === null ? {} : { retryAfterMs }),
      cause: error,
    });
  }
  return unreadable(error);
}

/** A 2xx answer the SDK could not read (a proxy's HTML page, broken JSON, a stream cut short). */
function unreadable(error: unknown): ModelError {
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError('bad_response', `unreadable answer: ${message}`, { cause: error });
}

/** Ollama lists `name:latest` for a model asked for as `name`. */
function listed(ids: readonly string[], model: string): boolean {
  return ids.some((id) => id === model || id === `${model}:latest`);
}

/**
 * A readiness check that does not queue behind real work: the server's model list (free, and
 * answered while a long inference runs) must name `model`. Servers without a list (404) get
 * `fallback` instead, a minimal real call.
 */
export async function checkModelListed(
  client: OpenAiClient,
  caller: RemoteCaller,
  model: string,
  fallback: () => Promise<void>,
): Promise<void> {
  let ids: string[];
  try {
    ids = await caller.call('model list', async (attempt) => {
      const page = await (await client()).models.list({ signal: attempt.signal });
      return page.data.map((entry) => entry.id);
    });
  } catch (error) {
    if (error instanceof ModelError && error.httpStatus === 404) return fallback();
    throw error;
  }
  if (!listed(ids, model)) {
    const shown = ids.slice(0, 10).join(', ') + (ids.length > 10 ? '…' : '');
    throw new ModelError(
      'rejected',
      `${model} is not among the models at ${client.baseUrl}: ${shown || 'none'}`,
    );
  }
}
