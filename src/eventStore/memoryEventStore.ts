import { randomUUID } from 'node:crypto';
import type { AppendResult, EventStore, RecordedEvent, StreamInfo } from './eventStore.js';
import {
  EventStoreUnavailableError,
  StreamDeletedError,
  WrongExpectedVersionError,
  expectedVersionHolds,
  matchesFilter,
} from './eventStore.js';
import {
  createAppendSignal,
  createSubscriptionRegistry,
  pullAllSubscription,
  pullStreamSubscription,
} from './subscription.js';

interface StreamRecord {
  /** The stream's events; their count is its version. */
  events: RecordedEvent[];
  deleted: boolean;
  metadata: Record<string, unknown>;
}

const newRecord = (): StreamRecord => ({ events: [], deleted: false, metadata: {} });

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

  function readForwards(stream: string, fromVersion: number, maxCount: number): RecordedEvent[] {
    const events = streamOf(stream)?.events ?? [];
    return clone(events.filter((event) => event.streamVersion >= fromVersion).slice(0, maxCount));
  }

  return {
    async append(stream, events, options = {}): Promise<AppendResult> {
      assertOpen();
      // Same turn of the event loop as a durable adapter's acknowledgement would take.
      await new Promise((resolve) => setImmediate(resolve));
      const record = streamOf(stream);
      if (record?.deleted) throw new StreamDeletedError(stream);
      const current = record?.events.length ?? 0;
      const expected = options.expectedVersion ?? 'any';
      if (!expectedVersionHolds(expected, current))
        throw new WrongExpectedVersionError(stream, expected, current);
      if (events.length === 0)
        return { nextExpectedVersion: current, position: record?.events.at(-1)?.position ?? 0 };
      const target = record ?? newRecord();
      streams.set(stream, target);
      const recordedAt = new Date().toISOString();
      for (const event of events) {
        lastPosition += 1;
        const recorded: RecordedEvent = {
          id: event.id ?? randomUUID(),
          type: event.type,
          data: clone(event.data),
          metadata: clone(event.metadata),
          streamName: stream,
          streamVersion: target.events.length + 1,
          position: lastPosition,
          recordedAt,
        };
        target.events.push(recorded);
        log.push(recorded);
      }
      appended.notify([stream]);
      return { nextExpectedVersion: target.events.length, position: lastPosition };
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
      return readForwards(stream, options.fromVersion ?? 1, limit);
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
        pullAllSubscription(
          appended,
          (position, max) => {
            // Matching events up to `max`; the checkpoint is the last event looked at.
            const events: RecordedEvent[] = [];
            let checkpoint = position;
            for (let index = indexAfter(position); index < log.length && events.length < max; index += 1) {
              const event = log[index]!;
              checkpoint = event.position;
              if (matchesFilter(event, options.filter)) events.push(event);
            }
            return { events: clone(events), checkpoint };
          },
          options,
        ),
      );
    },

    subscribeToStream(stream, options = {}) {
      return subscriptions.track(
        pullStreamSubscription(
          appended,
          stream,
          (fromVersion, max) => readForwards(stream, fromVersion, max),
          options,
        ),
      );
    },

    async streamInfo(stream): Promise<StreamInfo> {
      assertOpen();
      const record = streamOf(stream);
      return {
        version: record?.deleted ? 0 : (record?.events.length ?? 0),
        deleted: record?.deleted ?? false,
        metadata: clone(record?.metadata ?? {}),
      };
    },

    async setStreamMetadata(stream, metadata) {
      assertOpen();
      const record = streamOf(stream) ?? newRecord();
      record.metadata = clone(metadata);
      streams.set(stream, record);
    },

    async deleteStream(stream) {
      assertOpen();
      streams.set(stream, { events: [], deleted: true, metadata: {} });
      log = log.filter((event) => event.streamName !== stream);
    },

    async scrub() {
      assertOpen();
    },

    async headPosition(filter) {
      assertOpen();
      for (let index = log.length - 1; index >= 0; index -= 1) {
        if (matchesFilter(log[index]!, filter)) return log[index]!.position;
      }
      return 0;
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
