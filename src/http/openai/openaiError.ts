import type { HttpError } from '../httpError.js';
import type { Schema } from '../route.js';

/** The error body of the OpenAI wire, as OpenAI's own API and its clients have it. */
export const openaiErrorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'param', 'code'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string' },
        param: { type: ['string', 'null'] },
        code: { type: ['string', 'null'] },
      },
    },
  },
} as const satisfies Schema;

/**
 * OpenAI answers an invalid request 400, never 422: its clients raise `BadRequestError` for 400 and
 * know nothing of 422. Every other status is the same on both sides.
 */
export const openaiStatus = (status: number): number => (status === 422 ? 400 : status);

/** `{error: {message, type, param, code}}`: `code` is Archivist's error type, `param` the first invalid field. */
export function openaiError(error: HttpError): Record<string, unknown> {
  const status = openaiStatus(error.status);
  const type =
    status >= 500
      ? 'server_error'
      : status === 429
        ? 'requests'
        : status === 401
          ? 'authentication_error'
          : status === 403
            ? 'permission_error'
            : 'invalid_request_error';
  const field = error.issues[0]?.field;
  return {
    error: {
      message: error.message,
      type,
      param: field ? field.replace(/^body\./, '') : null,
      code: status === 429 ? 'rate_limit_exceeded' : error.type,
    },
  };
}
