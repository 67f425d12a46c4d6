import { codeForStatus, ModelError, parseRetryAfter, rootCause } from './modelError.js';

/** Longest part of an error body quoted in a message. */
const QUOTED = 300;

/** What an error body says, in the shapes servers use (`{error: {message}}`, `{error}`, `{message}`, `{detail}`). */
function errorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const error = parsed['error'];
    const text =
      (typeof error === 'object' && error !== null && (error as Record<string, unknown>)['message']) ||
      error ||
      parsed['message'] ||
      parsed['detail'];
    if (typeof text === 'string') return text.slice(0, QUOTED);
  } catch {
    // not JSON: quote the text itself
  }
  return body.trim().slice(0, QUOTED);
}

/**
 * POSTs JSON and reads a JSON answer, for model servers without an SDK here (rerankers). A non-2xx
 * answer becomes a ModelError carrying the status and `Retry-After`; a 2xx answer that is not JSON
 * is `bad_response`. Network failures are left to `translateFetchError`.
 */
export async function postJson(
  url: string,
  body: unknown,
  options: { headers?: Record<string, string>; signal?: AbortSignal },
): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers },
    body: JSON.stringify(body),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await response.text();
  if (!response.ok) {
    const retryAfterMs = parseRetryAfter(response.headers);
    const said = errorText(text);
    throw new ModelError(
      codeForStatus(response.status),
      `HTTP ${response.status}${said ? `: ${said}` : ''}`,
      {
        httpStatus: response.status,
        ...(retryAfterMs === null ? {} : { retryAfterMs }),
      },
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new ModelError('bad_response', `the answer is not JSON: ${JSON.stringify(text.slice(0, 80))}`, {
      cause,
    });
  }
}

/** The vendor edge for `fetch`: a refused or broken connection is `unavailable` (and retried). */
export function translateFetchError(error: unknown): ModelError {
  if (error instanceof ModelError) return error;
  if (error instanceof TypeError) {
    return new ModelError('unavailable', `no connection (${rootCause(error)})`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError('bad_response', `unreadable answer: ${message}`, { cause: error });
}
