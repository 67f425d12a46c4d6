import type { Metadata } from '../domain/shared/index.js';
import { BrandedError } from '../brandedError.js';

/**
 * The event store: the system of record. Every change in Archivist is an event appended to a stream
 * (`task-<id>`, `conversation-<id>` …); everything else is derived from it.
 *
 * Versions: a stream's version is the number of events in it (0 = no events). An event's
 * `streamVersion` is its 1-based place in the stream, i.e. the stream's version right after it was
 * appended. Positions: every event has a global `position`, strictly increasing in append order
 * across all streams (there may be gaps, e.g. where a stream was deleted). Position 0 means "before
 * the first event".
 */
export interface EventStore {
  /**
   * Appends events atomically: all or none. Resolves only once the events are durable (fsync'd or
   * replicated). Rejects with `WrongExpectedVersionError` when `expectedVersion` does not hold (the
   * stream is unchanged), and `StreamDeletedError` when the stream was deleted.
   */
  append(stream: string, events: readonly EventToAppend[], options?: AppendOptions): Promise<AppendResult>;
  /** A stream's events in order; `[]` for a stream that does not exist or was deleted. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Events of all streams after `fromPosition`, in position order. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * Catch-up subscription to all streams: yields batches of the events after `fromPosition` that
   * match the filter, as they are in the store, then follows new appends live. No event is skipped
   * or delivered twice at the hand-over from catch-up to live. The filter is applied by the store
   * (by an index or on the server), and each batch carries a checkpoint that moves past the events
   * the filter skipped — a batch may hold no events and only a newer checkpoint — so a subscriber
   * handling few event types neither reads the others nor scans them again after a restart.
   * Ends when closed or `signal` aborts.
   */
  subscribeToAll(options?: SubscribeToAllOptions): EventSubscription<AllBatch>;
  /** Catch-up subscription to one stream, from `fromVersion` (1-based, inclusive; default 1). */
  subscribeToStream(stream: string, options?: SubscribeToStreamOptions): EventSubscription<RecordedEvent[]>;
  /** Version, deletion state and metadata of a stream (`version` 0 when it does not exist). */
  streamInfo(stream: string): Promise<StreamInfo>;
  /** Replaces a stream's metadata (free-form JSON, e.g. `{ purgeAfter }`). */
  setStreamMetadata(stream: string, metadata: Record<string, unknown>): Promise<void>;
  /**
   * Permanently removes a stream's events: afterwards nothing of them can be read back through the
   * API, and once `scrub` has run, nothing of them remains in the files on disk. The stream stays
   * deleted: appending to it fails. Deleting a deleted or unknown stream does nothing more.
   */
  deleteStream(stream: string): Promise<void>;
  /**
   * Makes the content of every stream deleted so far unrecoverable from the store's files (for
   * SQLite: copies the WAL back and truncates it). Costly: call it once for a batch of deletions.
   */
  scrub(): Promise<void>;
  /**
   * Position of the newest event (0 when empty); with a filter, of the newest matching event — a
   * subscriber of those events whose checkpoint has reached it has seen all of them so far.
   */
  headPosition(filter?: EventFilter): Promise<number>;
  /** Whether the store answers now, and why not when it does not. */
  health(): Promise<{ healthy: boolean; reason: string | null }>;
  close(): Promise<void>;
}

export type ExpectedVersion =
  /** No check. */
  | 'any'
  /** The stream must have no events. */
  | 'no_stream'
  /** The stream must have at least one event. */
  | 'stream_exists'
  /** The stream's version must be exactly this (0 = no events). */
  | number;

export interface AppendOptions {
  expectedVersion?: ExpectedVersion;
}

export interface EventToAppend {
  /** Unique id; generated when absent. */
  id?: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Metadata;
}

export interface RecordedEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Metadata;
  streamName: string;
  streamVersion: number;
  position: number;
  /** ISO 8601 instant the store wrote the event. */
  recordedAt: string;
}

export interface AppendResult {
  /** The stream's version after the append; pass it as `expectedVersion` next time. */
  nextExpectedVersion: number;
  /** Position of the last appended event (of the stream's current end when nothing was appended). */
  position: number;
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** 1-based, inclusive. Forwards defaults to 1, backwards to the stream's end. */
  fromVersion?: number;
  maxCount?: number;
}

export interface EventFilter {
  /** Only events of these types. */
  eventTypes?: readonly string[];
  /** Only events of streams whose name starts with one of these. */
  streamPrefixes?: readonly string[];
}

export interface ReadAllOptions {
  /** Exclusive: events with a greater position. Default 0 (from the first event). */
  fromPosition?: number;
  maxCount?: number;
  filter?: EventFilter;
}

export interface SubscribeToAllOptions {
  fromPosition?: number;
  filter?: EventFilter;
  /** Largest batch yielded at once (default 500). */
  maxBatch?: number;
  signal?: AbortSignal;
}

export interface SubscribeToStreamOptions {
  fromVersion?: number;
  maxBatch?: number;
  signal?: AbortSignal;
}

/** Yields batches in order; `close()` (or breaking out of `for await`) ends it. */
export interface EventSubscription<Batch> extends AsyncIterable<Batch> {
  close(): void;
}

/** A batch of a subscription to all streams. */
export interface AllBatch {
  /** Matching events in position order (may be empty when only the checkpoint moved). */
  events: RecordedEvent[];
  /**
   * Every matching event at or before this position has been delivered, in this batch or an
   * earlier one: a subscriber that resumes from it misses nothing and repeats nothing.
   */
  checkpoint: number;
}

export interface StreamInfo {
  version: number;
  deleted: boolean;
  metadata: Record<string, unknown>;
}

/** Command handlers and reservations retry on it, by `instanceof` (branded: see BrandedError). */
export class WrongExpectedVersionError extends BrandedError {
  override readonly name = 'WrongExpectedVersionError';

  constructor(
    readonly stream: string,
    readonly expected: ExpectedVersion,
    readonly actual: number,
  ) {
    super(`Stream ${stream} is at version ${actual}, expected ${String(expected)}`);
  }
}

export class StreamDeletedError extends BrandedError {
  override readonly name = 'StreamDeletedError';
  constructor(readonly stream: string) {
    super(`Stream ${stream} was deleted`);
  }
}

/** The store cannot be reached or failed (disk full, server down). Safe to retry later. */
export class EventStoreUnavailableError extends BrandedError {
  override readonly name = 'EventStoreUnavailableError';
}

export function expectedVersionHolds(expected: ExpectedVersion, actual: number): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return actual === 0;
  if (expected === 'stream_exists') return actual > 0;
  return expected === actual;
}

export function matchesFilter(
  event: Pick<RecordedEvent, 'type' | 'streamName'>,
  filter: EventFilter | undefined,
): boolean {
  if (!filter) return true;
  if (filter.eventTypes && !filter.eventTypes.includes(event.type)) return false;
  if (filter.streamPrefixes && !filter.streamPrefixes.some((prefix) => event.streamName.startsWith(prefix))) {
    return false;
  }
  return true;
}
