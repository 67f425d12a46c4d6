import { createHash, randomUUID } from 'node:crypto';
import type {
  AllStreamResolvedEvent,
  AppendExpectedRevision,
  CurrentRevision,
  EventData,
  Filter,
  Position,
  ReadPosition,
  ResolvedEvent,
} from '@eventstore/db-client';
import {
  ANY,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  ErrorType,
  eventTypeFilter,
  excludeSystemEvents,
  isCommandError,
  streamNameFilter,
} from '@eventstore/db-client';
import type { Metadata } from '../domain/shared/index.js';
import type { EventFilter, EventToAppend, ExpectedVersion, RecordedEvent } from './eventStore.js';
import { EventStoreUnavailableError, StreamDeletedError, WrongExpectedVersionError } from './eventStore.js';

/*
 * Pure translations between the EventStore port and EventStoreDB (client 6.x, servers 22.10+).
 *
 * Versions: the port counts events (version n = n events, an event's streamVersion is 1-based);
 * EventStoreDB numbers events from 0 (revision r = the (r+1)th event). So version = revision + 1.
 *
 * Positions: every event record in the transaction log has a log position. Appends made through
 * gRPC are written as implicitly committed records (one record per event, no separate commit
 * record), and for those the server reports commit = prepare = the record's own log position, both
 * when reading $all and in the append result (which gives the position of the last event). Events
 * appended together therefore get distinct, increasing positions, and a later append's records come
 * after an earlier one's (one writer appends to the log). The port's single number is that position
 * (we take `commit`); we rebuild `{ commit: n, prepare: n }` to resume. Only the legacy TCP API's
 * explicit transactions (removed in v24) produced commit > prepare with one commit shared by several
 * events; such events would share a port position, so stores written that way are not supported.
 * Reading $all from a position is inclusive (the server returns the event at that position); a
 * catch-up subscription from a position is exclusive (it starts after it).
 */

/** Key in an event's metadata holding a caller-given id that is not a UUID (EventStoreDB needs UUIDs). */
const ORIGINAL_ID_KEY = 'archivistEventId';
/** Key in a stream's EventStoreDB metadata under which the port's free-form metadata lives. */
const METADATA_KEY = 'archivist';
/** Event type EventStoreDB writes as a hard-deleted stream's tombstone. */
export const TOMBSTONE_TYPE = '$streamDeleted';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Namespace for name-based ids (UUID v5 style), fixed forever: changing it changes derived ids. */
const ID_NAMESPACE = Buffer.from('6f1c2a0e5b8d4c37a9e4d2b7c1f08e35', 'hex');

/** 1-based stream version of the event at an EventStoreDB revision. */
export function versionFromRevision(revision: bigint): number {
  const version = Number(revision) + 1;
  if (revision < 0n || !Number.isSafeInteger(version))
    throw new RangeError(`invalid stream revision ${revision}`);
  return version;
}

/** Revision of the event at a 1-based stream version. */
export function revisionFromVersion(version: number): bigint {
  if (!Number.isSafeInteger(version) || version < 1)
    throw new RangeError(`invalid stream version ${version}`);
  return BigInt(version - 1);
}

/** Version of a stream whose last event has `current` (or none: `no_stream`, -1). */
export function versionFromCurrentRevision(current: CurrentRevision): number {
  return current === NO_STREAM || current < 0n ? 0 : versionFromRevision(current);
}

/** The port's expected version as EventStoreDB's (0 events and `no_stream` are the same). */
export function toExpectedRevision(expected: ExpectedVersion): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream' || expected === 0) return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return revisionFromVersion(expected);
}

/** EventStoreDB's expected revision as the port's expected version. */
export function fromExpectedRevision(expected: AppendExpectedRevision): ExpectedVersion {
  if (expected === ANY) return 'any';
  if (expected === NO_STREAM) return 'no_stream';
  if (expected === STREAM_EXISTS) return 'stream_exists';
  return versionFromRevision(expected);
}

/** The port's number for an EventStoreDB position (see the note at the top of this file). */
export function positionToNumber(position: Position | undefined): number {
  // Stream reads on servers before 22.6 carry no position (or 2^64 - 1 for "unknown").
  if (!position || position.commit < 0n || position.commit > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new Error(
      'EventStoreDB did not report an event position: this adapter needs EventStoreDB 22.10 or later',
    );
  }
  return Number(position.commit);
}

/** The EventStoreDB position of the event the port numbers `position`. */
export function numberToPosition(position: number): Position {
  return { commit: BigInt(position), prepare: BigInt(position) };
}

/**
 * Where to start reading $all to get the events after `position`. The read is inclusive, so the
 * caller asks for one more event and drops those at or before `position`; 0 means "before the
 * first event".
 */
export function readAllFrom(position: number): ReadPosition {
  return position <= 0 ? START : numberToPosition(position);
}

/** Where a catch-up subscription to $all starts to deliver the events after `position` (exclusive). */
export function subscribeAllFrom(position: number): ReadPosition {
  return position <= 0 ? START : numberToPosition(position);
}

/** Where a stream subscription starts to deliver events from `version` on (1-based, inclusive). */
export function subscribeStreamFrom(version: number): typeof START | bigint {
  // The server starts after the given revision: version v is revision v-1, so start after v-2.
  return version <= 1 ? START : revisionFromVersion(version - 1);
}

/** EventStoreDB's own events: metadata, tombstones, links, statistics, projection state. */
function isSystemEvent(type: string, streamName: string): boolean {
  return type.startsWith('$') || streamName.startsWith('$');
}

/** EventStoreDB wants a UUID per event; another id is mapped to a stable UUID and kept in the metadata. */
export function toEsdbEventId(id: string | undefined): { uuid: string; original: string | null } {
  if (id === undefined) return { uuid: randomUUID(), original: null };
  if (UUID.test(id)) return { uuid: id, original: null };
  return { uuid: uuidFromName(id), original: id };
}

/** A name-based UUID (version 5 layout over SHA-1), so retrying an append reuses the same ids. */
function uuidFromName(name: string): string {
  const bytes = createHash('sha1').update(ID_NAMESPACE).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The port's event as a JSON event for the client. */
export function toEventData(event: EventToAppend): EventData {
  const { uuid, original } = toEsdbEventId(event.id);
  const metadata: Record<string, unknown> = { ...event.metadata };
  if (original !== null) metadata[ORIGINAL_ID_KEY] = original;
  return { id: uuid, contentType: 'application/json', type: event.type, data: event.data, metadata };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

/** Events written by other tools may carry non-object or binary payloads: keep them under `value`. */
function toPayload(value: unknown): Record<string, unknown> {
  if (isPlainObject(value)) return value;
  if (value instanceof Uint8Array) {
    try {
      return toPayload(JSON.parse(Buffer.from(value).toString('utf8')) as unknown);
    } catch {
      return { value: Buffer.from(value).toString('base64') };
    }
  }
  return value === undefined ? {} : { value };
}

/**
 * The port's event for a resolved EventStoreDB event, or null for what Archivist does not store:
 * system events (`$`-prefixed types or streams: metadata, tombstones, links, statistics).
 */
export function fromResolved(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const record = resolved.event;
  if (!record || isSystemEvent(record.type, record.streamId)) return null;
  const metadata = { ...toPayload(record.metadata) };
  const originalId = metadata[ORIGINAL_ID_KEY];
  delete metadata[ORIGINAL_ID_KEY];
  return {
    id: typeof originalId === 'string' ? originalId : record.id,
    type: record.type,
    data: toPayload(record.data),
    // Events Archivist wrote always carry its Metadata; foreign ones are passed on as they are.
    metadata: metadata as unknown as Metadata,
    streamName: record.streamId,
    streamVersion: versionFromRevision(record.revision),
    position: positionToNumber(record.position),
    recordedAt: record.created.toISOString(),
  };
}

/** Position of a resolved event as the port numbers it (also for system events, to move cursors). */
export function positionOfResolved(resolved: ResolvedEvent | AllStreamResolvedEvent): number | null {
  return resolved.event ? positionToNumber(resolved.event.position) : null;
}

/** The port's metadata inside a stream's EventStoreDB metadata (other keys are the server's or an operator's). */
export function portMetadataFrom(esdbMetadata: unknown): Record<string, unknown> {
  const value = isPlainObject(esdbMetadata) ? esdbMetadata[METADATA_KEY] : undefined;
  return isPlainObject(value) ? value : {};
}

/**
 * The `$metadata` event replacing a stream's metadata with the port's: under its own key, so
 * free-form keys never collide with the server's (`maxCount` would become `$maxCount` and truncate
 * the stream), and keys an operator set (`$acl`, `$maxAge`) are kept as they were.
 */
export function metadataEventData(current: unknown, metadata: Record<string, unknown>): EventData {
  return {
    id: randomUUID(),
    contentType: 'application/json',
    type: '$metadata',
    data: { ...(isPlainObject(current) ? current : {}), [METADATA_KEY]: metadata },
    metadata: undefined,
  };
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

/**
 * The server-side filter for a subscription to $all. It only narrows what the server sends: the
 * port's filter is applied again on the client (exact type match, prefixes, system events), so the
 * two always agree. EventStoreDB filters on one thing, so with both types and prefixes the types go
 * to the server (usually the narrower) and the prefixes are checked here.
 */
export function serverFilterFor(filter: EventFilter | undefined): Filter {
  if (filter?.eventTypes) {
    const alternatives = filter.eventTypes.map(escapeRegex).join('|');
    return eventTypeFilter({ regex: `^(?:${alternatives})$` });
  }
  if (filter?.streamPrefixes && filter.streamPrefixes.length > 0) {
    return streamNameFilter({ prefixes: [...filter.streamPrefixes] });
  }
  return excludeSystemEvents();
}

export interface ErrorContext {
  stream?: string;
  expected?: ExpectedVersion;
}

const UNAVAILABLE_TYPES = new Set<string>([
  ErrorType.UNAVAILABLE,
  ErrorType.DEADLINE_EXCEEDED,
  ErrorType.TIMEOUT,
  ErrorType.CANCELLED,
  ErrorType.NOT_LEADER,
]);
/**
 * gRPC status codes that mean "the store cannot serve us now": CANCELLED, UNKNOWN,
 * DEADLINE_EXCEEDED, PERMISSION_DENIED, RESOURCE_EXHAUSTED, ABORTED, UNIMPLEMENTED (what a
 * non-EventStoreDB endpoint, e.g. a proxy answering 404, gives), INTERNAL, UNAVAILABLE and
 * UNAUTHENTICATED. The others (INVALID_ARGUMENT, NOT_FOUND…) are mistakes retrying will not fix.
 */
const UNAVAILABLE_GRPC_CODES = new Set([1, 2, 4, 7, 8, 10, 12, 13, 14, 16]);
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

function unavailable(message: string, cause: unknown): EventStoreUnavailableError {
  return new EventStoreUnavailableError(`EventStoreDB unavailable: ${message}`, { cause });
}

/**
 * The port's error for whatever the client threw: a version conflict or a deleted stream become the
 * port's semantic errors, a server that cannot be reached (or refuses us) becomes
 * `EventStoreUnavailableError`; anything else (programming errors) is returned unchanged.
 */
export function translateError(error: unknown, context: ErrorContext = {}): unknown {
  if (
    error instanceof WrongExpectedVersionError ||
    error instanceof StreamDeletedError ||
    error instanceof EventStoreUnavailableError ||
    !(error instanceof Error)
  ) {
    return error;
  }
  if (isCommandError(error)) {
    switch (error.type) {
      case ErrorType.WRONG_EXPECTED_VERSION:
        return new WrongExpectedVersionError(
          context.stream ?? error.streamName,
          context.expected ?? fromExpectedRevision(error.expectedVersion),
          versionFromCurrentRevision(error.actualVersion),
        );
      case ErrorType.STREAM_DELETED:
        return new StreamDeletedError(context.stream ?? error.streamName);
      case ErrorType.ACCESS_DENIED:
        return unavailable(
          `access denied (check the credentials in the connection string): ${error.message}`,
          error,
        );
      case ErrorType.MAXIMUM_APPEND_SIZE_EXCEEDED:
        return new RangeError(
          `EventStoreDB refused the append: larger than its maximum append size (${error.maxAppendSize} bytes)`,
          { cause: error },
        );
      case ErrorType.UNKNOWN:
        // The client files every unrecognised gRPC status here; its code says which it was.
        return error.code === undefined || UNAVAILABLE_GRPC_CODES.has(error.code)
          ? unavailable(error.message, error)
          : error;
      default:
        return UNAVAILABLE_TYPES.has(error.type) ? unavailable(error.message, error) : error;
    }
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number' && UNAVAILABLE_GRPC_CODES.has(code)) return unavailable(error.message, error);
  if (typeof code === 'string' && UNAVAILABLE_SOCKET_CODES.has(code))
    return unavailable(error.message, error);
  if (/failed to discover/i.test(error.message)) return unavailable(error.message, error);
  return error;
}

/** True for the client's "stream not found" (never written, or emptied by soft deletion or $maxAge). */
export function isStreamNotFound(error: unknown): boolean {
  return error instanceof Error && isCommandError(error) && error.type === ErrorType.STREAM_NOT_FOUND;
}

/** True for the client's "stream deleted" (a tombstone: hard deletion). */
export function isStreamDeleted(error: unknown): boolean {
  return error instanceof Error && isCommandError(error) && error.type === ErrorType.STREAM_DELETED;
}
