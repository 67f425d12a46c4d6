import { COLLECTION_NAME } from '../../domain/collection/events.js';
import type { Schema } from '../route.js';

/** The Retrieval API's error body (every 4xx/5xx), as published in OpenAPI. */
export const errorSchema = {
  type: 'object',
  required: ['error', 'detail', 'status_code', 'timestamp'],
  properties: {
    error: { type: 'string', description: 'Error type, e.g. not_found, validation_error' },
    detail: { type: 'string', description: 'What went wrong, for people' },
    status_code: { type: 'integer' },
    timestamp: { type: 'string', format: 'date-time' },
    errors: {
      type: 'array',
      description: 'Validation errors only: each invalid field',
      items: {
        type: 'object',
        required: ['location', 'field', 'message'],
        properties: { location: { type: 'string' }, field: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} as const satisfies Schema;

export const errorResponses = {
  401: { description: 'Missing API key', schema: errorSchema },
  403: { description: 'Invalid API key', schema: errorSchema },
  422: { description: 'Invalid parameters or body', schema: errorSchema },
  503: { description: 'A store the request needs is unavailable; retry later', schema: errorSchema },
} as const;

/** For routes that call a remote model (the embedder, the chat model, the reranker). */
export const modelErrorResponses = {
  502: { description: 'The configured model refused the request or answered unusably', schema: errorSchema },
  503: {
    description: 'The configured model or a store is unavailable; retry later (Retry-After)',
    schema: errorSchema,
  },
} as const;

export const nullableString = { type: ['string', 'null'] } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;

/** The `collection` field of upload and scrape (additive): which collection the documents go to. */
export const collectionField = {
  type: 'string',
  default: 'default',
  pattern: COLLECTION_NAME.source,
  description:
    'Collection the documents go to (lower-case letters, digits, - and _). A collection with grants is private: only its grantees (write, to add) and administrators see it',
} as const;
