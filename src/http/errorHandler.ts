import type { Middleware } from 'koa';
import { NO_TOKENS, tokensUsedSchema } from './assistant/envelope.js';
import { HttpError, toHttpError } from './httpError.js';
import type { Schema } from './route.js';
import type { RequestState } from './mountRoutes.js';
import { openaiError, openaiStatus } from './openai/openaiError.js';

/** The Retrieval API's error body. `errors` lists each invalid field of a validation error. */
function retrievalError(error: HttpError): Record<string, unknown> {
  return {
    error: error.type,
    detail: error.message,
    status_code: error.status,
    timestamp: new Date().toISOString(),
    ...(error.issues.length > 0 ? { errors: error.issues } : {}),
  };
}

/** The Assistant API's error envelope, as published in OpenAPI. */
export const assistantErrorSchema = {
  type: 'object',
  required: ['message'],
  properties: {
    message: {
      type: 'object',
      required: ['success', 'data', 'tokens_used', 'error'],
      properties: {
        success: { const: false },
        data: { type: 'null' },
        tokens_used: tokensUsedSchema,
        error: {
          type: 'object',
          required: ['type', 'message', 'status_code'],
          properties: {
            type: { type: 'string' },
            message: { type: 'string' },
            status_code: { type: 'integer' },
            errors: { type: 'array', items: { type: 'object' } },
            detail: { type: 'object' },
          },
        },
      },
    },
  },
} as const satisfies Schema;

/** The Assistant API's envelope, with `success: false` and `tokens_used` all zero. */
function assistantError(error: HttpError): Record<string, unknown> {
  return {
    message: {
      success: false,
      data: null,
      tokens_used: { ...NO_TOKENS },
      error: {
        type: error.type,
        message: error.message,
        status_code: error.status,
        ...(error.issues.length > 0 ? { errors: error.issues } : {}),
        ...(error.detail ? { detail: error.detail } : {}),
      },
    },
  };
}

/**
 * Turns every error into the owning API's error shape (the Assistant API's under `prefixes.assistant`,
 * OpenAI's under `prefixes.openai`, the Retrieval API's everywhere else) with a proper status and the error's headers. Errors are
 * logged here, once: 503 and 504 (a dependency down or slow) at warn, other 5xx (a bug, a model
 * refusing our requests) with the stack at error, client errors at info.
 */
export function errorHandler(prefixes: { assistant?: string; openai?: string } = {}): Middleware {
  const under = (path: string, prefix: string | undefined): boolean =>
    prefix !== undefined && path.startsWith(`${prefix}/`);
  const isAssistantPath = (path: string): boolean => under(path, prefixes.assistant);
  const isOpenAiPath = (path: string): boolean => under(path, prefixes.openai);
  return async (ctx, next) => {
    try {
      await next();
    } catch (raw) {
      const error = toHttpError(raw);
      const { log, signal } = ctx.state as RequestState;
      if (signal.aborted && error.status !== 408) {
        // The client went away (an aborted upload, a closed tab): the request line says so, with 499.
        log.debug({ err: raw }, 'request ended by the client');
        return;
      }
      if (error.alreadyLogged) {
        log.info({ status: error.status, type: error.type }, 'request failed (logged where it happened)');
      } else if (error.status === 503 || error.status === 504) {
        // A store, the bus or a model is down or slow: an outage that passes, which its component reports.
        log.warn({ status: error.status, type: error.type, detail: error.message }, 'request failed');
      } else if (error.status >= 500) {
        log.error({ err: raw, status: error.status }, 'request failed');
      } else {
        log.info({ status: error.status, type: error.type, detail: error.message }, 'request rejected');
      }
      if (ctx.headerSent) return;
      if (isOpenAiPath(ctx.path)) {
        ctx.status = openaiStatus(error.status);
        ctx.body = openaiError(error);
      } else {
        ctx.status = error.status;
        ctx.body = isAssistantPath(ctx.path) ? assistantError(error) : retrievalError(error);
      }
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    }
  };
}

interface PathMatcher {
  match(path: string, method: string): { path: Array<{ methods: string[] }> };
}

/**
 * The answer for a request no route served: 405 (with `Allow`) when the path exists for other
 * methods, 204 with `Allow` for OPTIONS, 404 otherwise.
 */
export function notFound(router: PathMatcher): Middleware {
  return async (ctx) => {
    const allowed = new Set(router.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods));
    if (allowed.size > 0) {
      const allow = [...allowed].join(', ');
      if (ctx.method === 'OPTIONS') {
        ctx.status = 204;
        ctx.set('Allow', allow);
        return;
      }
      throw new HttpError(
        405,
        'method_not_allowed',
        `${ctx.method} is not allowed on ${ctx.path}; use ${allow}`,
        [],
        { Allow: allow },
      );
    }
    throw new HttpError(404, 'not_found', `No endpoint ${ctx.method} ${ctx.path}`);
  };
}
