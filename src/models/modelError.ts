/**
 * Why a remote model call failed, whatever the vendor or wire format:
 * - `rate_limited`: 429, retried (after `Retry-After` when the server gives one);
 * - `unavailable`: 5xx or no connection, retried;
 * - `timeout`: an attempt took longer than its time limit, not retried (the time budget is spent);
 * - `aborted`: the caller gave up;
 * - `rejected`: any other 4xx (bad key, unknown model, a request the server refuses), not retried;
 * - `bad_response`: the server answered 2xx with something unusable (malformed JSON, missing
 *   fields, vectors of the wrong size), not retried;
 * - `unsupported`: the model cannot do what was asked (a local model and a JSON schema).
 */
export type ModelErrorCode =
  'rate_limited' | 'unavailable' | 'timeout' | 'aborted' | 'rejected' | 'bad_response' | 'unsupported';

export interface ModelErrorDetails {
  /** The HTTP status the server answered, when it answered. Not named `status`: an upstream 401 is
   * not the client's 401, and the HTTP error mapper reads `status` fields. */
  httpStatus?: number;
  /** How long the server asked us to wait (`Retry-After`, `retry-after-ms`). */
  retryAfterMs?: number;
  /** Attempts made before giving up. */
  attempts?: number;
  cause?: unknown;
}

export class ModelError extends Error {
  override readonly name = 'ModelError';
  readonly httpStatus: number | null;
  readonly retryAfterMs: number | null;
  readonly attempts: number;

  constructor(
    readonly code: ModelErrorCode,
    message: string,
    details: ModelErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.httpStatus = details.httpStatus ?? null;
    this.retryAfterMs = details.retryAfterMs ?? null;
    this.attempts = details.attempts ?? 1;
  }

  /** Worth another attempt: the server may answer differently in a moment. */
  get retryable(): boolean {
    return this.code === 'rate_limited' || this.code === 'unavailable';
  }

  /** The same error after `attempts` attempts, its message saying so. */
  withAttempts(attempts: number): ModelError {
    if (attempts <= 1) return this;
    return new ModelError(this.code, `${this.message} (after ${attempts} attempts)`, {
      ...(this.httpStatus === null ? {} : { httpStatus: this.httpStatus }),
      ...(this.retryAfterMs === null ? {} : { retryAfterMs: this.retryAfterMs }),
      attempts,
      cause: this.cause,
    });
  }
}

/** The code an HTTP status means (for answers that are not 2xx). */
export function codeForStatus(status: number): ModelErrorCode {
  if (status === 429) return 'rate_limited';
  if (status >= 500 || status === 408) return 'unavailable';
  return 'rejected';
}

/**
 * How long a server asked us to wait, in ms: `retry-after-ms` (OpenAI's), else `Retry-After` as
 * seconds or an HTTP date. Null when absent or unreadable.
 */
export function parseRetryAfter(
  headers: { get(name: string): string | null },
  now = Date.now(),
): number | null {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The innermost cause's words, for connection errors wrapped several times over (`fetch failed` → `ECONNREFUSED 127.0.0.1:9`). */
export function rootCause(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
