import { ConcurrencyError } from '../commands/commandHandler.js';
import {
  DomainError,
  ForbiddenError,
  InvalidStateError,
  NotFoundError,
  RuleViolationError,
} from '../domain/shared/index.js';
import { ParseError, type ParseErrorCode } from '../parsing/errors.js';
import { isServiceUnavailable } from '../unavailable.js';
import { PoolBusyError } from '../parsing/worker/parsePool.js';
import { ModelError } from '../models/modelError.js';
import { snakeKeys } from './snakeCase.js';

export interface ValidationIssue {
  location: 'path' | 'query' | 'body' | 'header';
  /** Dotted path of the offending field ('' for the whole body). */
  field: string;
  message: string;
}

/** An error with the HTTP status, machine-readable type and message a client should get. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  /** Logged where it happened (a chat turn, which runs on after its request): not logged again. */
  alreadyLogged = false;
  /**
   * The log position of what the failed request recorded (a chat turn's failure is a message of its
   * conversation): with `readAfterWrite`, the error waits for it like a success would.
   */
  position: number | undefined = undefined;
  /** What the client may want to know of the state that refused it (snake_case), e.g. a decided action's outcome. */
  detail: Record<string, unknown> | undefined = undefined;
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly issues: readonly ValidationIssue[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const PARSE_STATUS: Record<ParseErrorCode, number> = {
  unsupported_format: 415,
  format_mismatch: 415,
  too_large: 413,
  corrupt_document: 422,
  encrypted_document: 422,
  empty_document: 422,
  too_complex: 422,
  timeout: 422,
  aborted: 499,
};

interface LibraryHttpError {
  status?: unknown;
  statusCode?: unknown;
  httpCode?: unknown;
  expose?: unknown;
  type?: unknown;
  message?: unknown;
}

/**
 * Maps anything thrown while handling a request to what the client sees. Domain errors keep their
 * code; stores that are down are 503 (retry later); body-parser errors keep their 4xx status;
 * anything else is a 500 whose details stay in the log.
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof NotFoundError) return new HttpError(404, error.code, error.message);
  if (error instanceof ForbiddenError) return new HttpError(403, error.code, error.message);
  if (error instanceof InvalidStateError) {
    const conflict = new HttpError(409, error.code, error.message);
    if (Object.keys(error.details).length > 0) conflict.detail = snakeKeys(error.details);
    return conflict;
  }
  if (error instanceof ConcurrencyError) return new HttpError(409, 'concurrent_modification', error.message);
  if (error instanceof RuleViolationError) return new HttpError(422, error.code, error.message);
  if (error instanceof DomainError) return new HttpError(400, error.code, error.message);
  if (error instanceof ParseError) return new HttpError(PARSE_STATUS[error.code], error.code, error.message);
  if (error instanceof PoolBusyError) {
    return new HttpError(
      503,
      'busy',
      `Too many documents are being parsed (${error.message}); retry later`,
      [],
      { 'Retry-After': '10' },
    );
  }
  if (isServiceUnavailable(error)) return serviceUnavailable(`${error.message}; retry later`);
  if (error instanceof ModelError && error.code !== 'aborted') return modelHttpError(error);
  const candidate = (typeof error === 'object' && error !== null ? error : {}) as LibraryHttpError;
  const status = Number(candidate.status ?? candidate.statusCode ?? candidate.httpCode);
  if (Number.isInteger(status) && status >= 400 && status < 500) {
    if (status === 413)
      return new HttpError(413, 'payload_too_large', 'The request body is larger than this endpoint accepts');
    if (candidate.type === 'entity.parse.failed' || (status === 400 && error instanceof SyntaxError)) {
      return new HttpError(
        400,
        'invalid_json',
        `The request body is not valid JSON: ${String(candidate.message)}`,
      );
    }
    if (status === 405)
      return new HttpError(405, 'method_not_allowed', String(candidate.message ?? 'Method not allowed'));
    return new HttpError(status, 'bad_request', String(candidate.message ?? 'Bad request'));
  }
  if (status === 501)
    return new HttpError(501, 'not_implemented', String(candidate.message ?? 'Not implemented'));
  return new HttpError(500, 'internal_error', 'An unexpected error occurred');
}

/** 503 `service_unavailable`: something the request needs cannot serve now; the client may retry after `retryAfterSeconds`. */
export function serviceUnavailable(message: string, retryAfterSeconds = 5): HttpError {
  return new HttpError(503, 'service_unavailable', message, [], { 'Retry-After': String(retryAfterSeconds) });
}

/**
 * A model server's failure is not the client's: 503 while it may recover (rate limit, outage,
 * timeout), 502 when it answered unusably or refused us (its message, which may quote keys or
 * prompts, stays in the log). Its own status is never passed on: an upstream 401 is not the client's.
 */
function modelHttpError(error: ModelError): HttpError {
  if (error.code === 'unsupported') return new HttpError(501, 'not_implemented', error.message);
  if (error.retryable || error.code === 'timeout') {
    return new HttpError(
      503,
      'model_unavailable',
      `A model did not answer (${error.code}); retry later`,
      [],
      {
        'Retry-After': String(Math.max(1, Math.ceil((error.retryAfterMs ?? 5_000) / 1000))),
      },
    );
  }
  return new HttpError(502, 'model_error', `A model failed (${error.code}); see the server log`);
}
