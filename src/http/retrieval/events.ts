import { eventFeed } from '../../eventStore/eventFeed.js';
import type { EventStore, RecordedEvent } from '../../eventStore/eventStore.js';
import { HttpError } from '../httpError.js';
import { defineRoute } from '../route.js';
import { openSse, pumpSse } from '../sse.js';
import { errorResponses } from './schemas.js';

export interface EventRouteDeps {
  eventStore: EventStore;
  /** How often an idle stream sends a comment line. */
  sseKeepAliveMs: number;
}

/** Comma-separated lists of stream categories and of event types. */
const CATEGORIES = '^[a-z][a-z0-9_]*(,[a-z][a-z0-9_]*)*$';
const EVENT_TYPES = '^[A-Za-z][A-Za-z0-9_]*(,[A-Za-z][A-Za-z0-9_]*)*$';

/** The data of one event on the wire: where it is, what it is, and what it says. */
function toWire(event: RecordedEvent): Record<string, unknown> {
  return {
    position: event.position,
    id: event.id,
    stream: event.streamName,
    version: event.streamVersion,
    type: event.type,
    recorded_at: event.recordedAt,
    data: event.data,
    metadata: event.metadata,
  };
}

const commaList = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

/**
 * `GET /events`: the event log as Server-Sent Events, for audit and replay tools (the same feed as
 * `archivist events --follow`).
 */
export function eventRoutes(deps: EventRouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/events',
      operationId: 'followEvents',
      summary: 'Follow the event log (Server-Sent Events)',
      description:
        "Every event of the log in order — from the start, after `from`, or after the `Last-Event-ID` header (an event's `id` is its global position, so a reconnecting EventSource resumes with no gap and no repeat) — then new ones live. `category` keeps only streams of those categories (comma-separated: task, document, purged, …) and `types` only those event types, both filtered by the store. Each SSE event is named after the event's type; its data holds position, id, stream, version, type, recorded_at, data and metadata. A comment line every `SSE_KEEPALIVE_MS` (15 s by default) keeps idle connections open. Deleted (purged) streams are gone from the log; their content-free purge records remain, in category `purged`.",
      tags: ['Events'],
      query: {
        type: 'object',
        properties: {
          from: {
            type: 'integer',
            minimum: 0,
            maximum: Number.MAX_SAFE_INTEGER,
            default: 0,
            description: 'Start after this global position (0: from the first event)',
          },
          category: {
            type: 'string',
            maxLength: 1_000,
            pattern: CATEGORIES,
            description: 'Comma-separated stream categories',
          },
          types: {
            type: 'string',
            maxLength: 4_000,
            pattern: EVENT_TYPES,
            description: 'Comma-separated event types',
          },
        },
        required: ['from'],
      },
      responses: {
        200: {
          description: 'The event stream',
          contentType: 'text/event-stream',
          schema: {
            type: 'object',
            required: ['position', 'id', 'stream', 'version', 'type', 'recorded_at', 'data', 'metadata'],
            properties: {
              position: { type: 'integer' },
              id: { type: 'string' },
              stream: { type: 'string' },
              version: { type: 'integer' },
              type: { type: 'string' },
              recorded_at: { type: 'string', format: 'date-time' },
              data: { type: 'object' },
              metadata: { type: 'object' },
            },
          },
        },
        ...errorResponses,
      },
      async handle({ query, koa, signal, log, caller }) {
        // The whole log holds every collection's documents and every user's tasks: services and
        // administrators only.
        if (caller.reader?.kind === 'user' && !caller.reader.admin) {
          throw new HttpError(
            403,
            'events_forbidden',
            'The event log is for services (X-API-Key) and administrators',
          );
        }
        const lastEventId = Number(koa.get('last-event-id'));
        const from = Number.isSafeInteger(lastEventId) && lastEventId > 0 ? lastEventId : query.from;
        const sse = openSse(koa, signal, deps.sseKeepAliveMs);
        const feed = eventFeed(deps.eventStore, {
          from,
          categories: commaList(query.category),
          types: commaList(query.types),
          follow: true,
          signal,
        });
        pumpSse(sse, { signal, log }, async () => {
          for await (const { event, cursor } of feed) {
            sse.send({ id: cursor, event: event.type, data: toWire(event) });
            // A replay of a long log must not pile up in memory behind a slow client.
            await sse.drained();
          }
        });
      },
    }),
  ];
}
