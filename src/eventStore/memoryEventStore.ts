import { randomUUID } from 'node:crypto';
import type { AppendResult, EventStore, RecordedEvent, StreamInfo } from './eventStore.js';
import {
  EventStoreUnavailableError,
  StreamDeletedError,
  WrongExpectedVersionError,
  expectedVersionHolds,
  matchesFilter,
} from './eventStore.js';
import { createAppendSignal, createPullSubscription, createSubscriptionRegistry } from './subscription.js';

interface StreamRecord {
  events: RecordedEvent[];
  /** Version of the last event; kept apart from `events.length` so deletion can keep it. */
  version: number;
  deleted: boolean;
  metadata: Record<string, unknown>;
}

/** An event store in memory, for fast tests. Same semantics as the durable adapters, no durability. */
export function createMemoryEventStore(): EventStore {
  let log: RecordedEvent[] = [];
  const streams = new Map<string, StreamRecord>();
  let lastPosition = 0;
  let closed = false;
  const appended = createAppendSignal(null);
  const subscriptions = createSubscriptionRegistry();

  const clone = <T>(value: T): T => structuredClone(value);
  const streamOf = (name: string): StreamRecord | undefined => streams.get(name);
  const assertOpen = (): void => {
    if (closed) throw new EventStoreUnavailableError('event store is closed');
  };

  /** First index in `log` with a position greater than `position` (the log is sorted). */
  function indexAfter(position: number): number {
    let low = 0;
    let high = log.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (log[middle]!.position <= position) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  return {
    async append(stream, events, options = {}): Promise<AppendResult> {
      assertOpen();
      // Same turn of the event loop as a durable adapter's acknowledgement would take.
      await new Promise((resolve) => setImmediate(resolve));
      const record = streamOf(stream);
      if (record?.deleted) throw new StreamDeletedError(stream);
      const current = record?.version ?? 0;
      const expected = options.expectedVersion ?? 'any';
      if (!expectedVersionHolds(expected, current))
        throw new WrongExpectedVersionError(stream, expected, current);
      if (events.length === 0)
        return { nextExpectedVersion: current, position: record?.events.at(-1)?.position ?? 0 };
      const target = record ?? { events: [], version: 0, deleted: false, metadata: {} };
      streams.set(stream, target);
      const recordedAt = new Date().toISOString();
      for (const event of events) {
        lastPosition += 1;
        target.version += 1;
        const recorded: RecordedEvent = {
          id: event.id ?? randomUUID(),
          type: event.type,
          data: clone(event.data),
          metadata: clone(event.metadata),
          streamName: stream,
          streamVersion: target.version,
          position: lastPosition,
          recordedAt,
        };
        target.events.push(recorded);
        log.push(recorded);
      }
      appended.notify();
      return { nextExpectedVersion: target.version, position: lastPosition };
    },

    async readStream(stream, options = {}) {
      assertOpen();
      const events = streamOf(stream)?.events ?? [];
      const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
      if (options.direction === 'backwards') {
        const from = options.fromVersion ?? Number.MAX_SAFE_INTEGER;
        return clone(
          events
            .filter((event) => event.streamVersion <= from)
            .reverse()
            .slice(0, limit),
        );
      }
      const from = options.fromVersion ?? 1;
      return clone(events.filter((event) => event.streamVersion >= from).slice(0, limit));
    },

    async readAll(options = {}) {
      assertOpen();
      const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
      const result: RecordedEvent[] = [];
      for (
        let index = indexAfter(options.fromPosition ?? 0);
        index < log.length && result.length < limit;
        index += 1
      ) {
        const event = log[index]!;
        if (matchesFilter(event, options.filter)) result.push(event);
      }
      return clone(result);
    },

    subscribeToAll(options = {}) {
      return subscriptions.track(
        createPullSubscription<number>(
          {
            appended,
            async next(cursor, max) {
              const batch = log.slice(indexAfter(cursor), indexAfter(cursor) + max);
              const last = batch.at(-1);
              return {
                events: clone(batch.filter((event) => matchesFilter(event, options.filter))),
                cursor: last ? last.position : cursor,
              };
            },
          },
          options.fromPosition ?? 0,
          options,
        ),
      );
    },

    subscribeToStream(stream, options = {}) {
      return subscriptions.track(
        createPullSubscription<number>(
          {
            appended,
            async next(fromVersion, max) {
              const events = (streamOf(stream)?.events ?? [])
                .filter((event) => event.streamVersion >= fromVersion)
                .slice(0, max);
              const last = events.at(-1);
              return { events: clone(events), cursor: last ? last.streamVersion + 1 : fromVersion };
            },
          },
          options.fromVersion ?? 1,
          options,
        ),
      );
    },

    async streamInfo(stream): Promise<StreamInfo> {
      assertOpen();
      const record = streamOf(stream);
      return {
        version: record?.deleted ? 0 : (record?.version ?? 0),
        deleted: record?.deleted ?? false,
        metadata: clone(record?.metadata ?? {}),
      };
    },

    async setStreamMetadata(stream, metadata) {
      assertOpen();
      const record = streamOf(stream) ?? { events: [], version: 0, deleted: false, metadata: {} };
      record.metadata = clone(metadata);
      streams.set(stream, record);
    },

    async deleteStream(stream) {
      assertOpen();
      const record = streamOf(stream) ?? { events: [], version: 0, deleted: false, metadata: {} };
      streams.set(stream, { events: [], version: record.version, deleted: true, metadata: {} });
      log = log.filter((event) => event.streamName !== stream);
    },

    async headPosition() {
      assertOpen();
      return log.at(-1)?.position ?? 0;
    },

    async health() {
      return closed ? { healthy: false, reason: 'event store is closed' } : { healthy: true, reason: null };
    },

    async close() {
      closed = true;
      subscriptions.closeAll();
    },
  };
}
