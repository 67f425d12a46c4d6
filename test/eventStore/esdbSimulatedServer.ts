import { Readable } from 'node:stream';
import type { AllStreamResolvedEvent, Filter, Position } from '@eventstore/db-client';
import {
  StreamDeletedError,
  StreamNotFoundError,
  UnavailableError,
  UnknownError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import type { EsdbClient, EsdbRead, EsdbSubscription } from '../../src/eventStore/esdbClient.js';

/**
 * An in-memory stand-in for an EventStoreDB server behind the 6.x client, faithful to what the
 * adapter relies on (and throwing the client's own error classes):
 * - revisions count from 0; a tombstone is a `$streamDeleted` record with revision 2^63-1;
 * - every event is its own implicitly committed record: commit = prepare = its log position, and
 *   positions are byte offsets with gaps (records have sizes), starting after a reserved header;
 * - reading $all forwards is inclusive of the start position, backwards exclusive; $all includes
 *   system records, tombstones and the events of deleted streams until `scavenge()`;
 * - subscriptions start strictly after their position/revision, catch up, then follow appends;
 *   a stream subscription sends the tombstone and then fails with "stream deleted";
 * - `setDown(true)` makes every call fail as unavailable and breaks open subscriptions.
 */
export interface SimulatedEsdb {
  client: EsdbClient;
  setDown(down: boolean): void;
  /** Rewrites the log without deleted streams' events (here every chunk counts as complete). */
  scavenge(): void;
  records(): readonly SimRecord[];
  /** Open server-side subscriptions (to check that closing the adapter ends them). */
  openSubscriptions(): number;
}

export interface SimRecord {
  streamId: string;
  revision: bigint;
  type: string;
  id: string;
  data: unknown;
  metadata: unknown;
  created: Date;
  position: bigint;
}

const TOMBSTONE_REVISION = 9223372036854775807n;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Sub = Readable & EsdbSubscription;

export function createSimulatedEsdb(options: { systemEventEvery?: number } = {}): SimulatedEsdb {
  let log: SimRecord[] = [];
  const streams = new Map<string, { last: bigint; deleted: boolean }>();
  let nextPosition = 1024n;
  let down = false;
  let appends = 0;
  const pumps = new Map<Sub, () => void>();

  const unavailable = (): Error =>
    new UnavailableError(undefined, '14 UNAVAILABLE: No connection established');
  const copy = (value: unknown): unknown =>
    value === undefined ? undefined : JSON.parse(JSON.stringify(value));

  function write(
    streamId: string,
    revision: bigint,
    type: string,
    id: string,
    data: unknown,
    metadata: unknown,
  ) {
    const position = nextPosition;
    nextPosition += 80n + BigInt(JSON.stringify([data, metadata, streamId, type]).length);
    log.push({
      streamId,
      revision,
      type,
      id,
      data: copy(data),
      metadata: copy(metadata),
      created: new Date(),
      position,
    });
  }

  function appendRecords(
    streamId: string,
    events: Array<{ type: string; id: string; data: unknown; metadata: unknown }>,
  ) {
    const state = streams.get(streamId) ?? { last: -1n, deleted: false };
    for (const event of events) {
      state.last += 1n;
      write(streamId, state.last, event.type, event.id, event.data, event.metadata);
    }
    streams.set(streamId, state);
  }

  function notify(): void {
    for (const pump of [...pumps.values()]) pump();
  }

  function toResolved(record: SimRecord): AllStreamResolvedEvent {
    const position: Position = { commit: record.position, prepare: record.position };
    return {
      event: {
        streamId: record.streamId,
        id: record.id,
        isJson: true,
        revision: record.revision,
        type: record.type,
        created: record.created,
        data: copy(record.data) as Record<string, unknown>,
        metadata: copy(record.metadata) as Record<string, unknown> | undefined,
        position,
      },
      commitPosition: record.position,
    };
  }

  function finiteRead<E>(produce: () => E[]): EsdbRead<E> {
    const stream = new Readable({ objectMode: true, read() {} });
    setImmediate(() => {
      if (down) return void stream.destroy(unavailable());
      try {
        for (const item of produce()) stream.push(item);
        stream.push(null);
      } catch (error) {
        stream.destroy(error as Error);
      }
    });
    return Object.assign(stream, { cancel: async () => void stream.destroy() });
  }

  function subscription(
    highWaterMark: number | undefined,
    startAfter: () => bigint,
    select: (r: SimRecord) => boolean,
    after: (r: SimRecord) => bigint,
    checkpointReached?: (position: Position) => unknown,
  ) {
    const stream = new Readable({ objectMode: true, highWaterMark, read() {} }) as Sub;
    stream.unsubscribe = async () => {
      pumps.delete(stream);
      stream.destroy();
    };
    setImmediate(() => {
      if (stream.destroyed) return;
      if (down) return void stream.destroy(unavailable());
      let cursor = startAfter();
      let scanned = cursor;
      const pump = (): void => {
        let skipped = false;
        for (const record of log) {
          if (stream.destroyed || after(record) <= scanned) continue;
          scanned = after(record);
          if (!select(record)) {
            skipped = true;
            continue;
          }
          cursor = scanned;
          stream.push(toResolved(record));
          if (record.type === '$streamDeleted') {
            pumps.delete(stream);
            setImmediate(() => stream.destroy(StreamDeletedError.fromStreamName(record.streamId)));
            return;
          }
        }
        // Like the server: a filtered subscription reports how far it has looked, in stream order.
        if (skipped && checkpointReached && !stream.destroyed)
          checkpointReached({ commit: scanned, prepare: scanned });
      };
      pumps.set(stream, pump);
      pump();
    });
    return stream;
  }

  function passes(filter: Filter, record: SimRecord): boolean {
    const subject = filter.filterOn === 'eventType' ? record.type : record.streamId;
    return 'regex' in filter
      ? new RegExp(filter.regex).test(subject)
      : filter.prefixes.some((p) => subject.startsWith(p));
  }

  const client: EsdbClient = {
    async appendToStream(streamName, events, { expectedRevision }) {
      await new Promise((resolve) => setImmediate(resolve));
      if (down) throw unavailable();
      const state = streams.get(streamName);
      if (state?.deleted) throw StreamDeletedError.fromStreamName(streamName);
      const current = state?.last ?? -1n;
      const holds =
        expectedRevision === 'any' ||
        (expectedRevision === 'no_stream' && current < 0n) ||
        (expectedRevision === 'stream_exists' && current >= 0n) ||
        expectedRevision === current;
      if (!holds) {
        throw new WrongExpectedVersionError(undefined, {
          streamName,
          expected: expectedRevision,
          current: current < 0n ? 'no_stream' : current,
        });
      }
      if (events.some((event) => !UUID.test(event.id)))
        throw new UnknownError(undefined, 'event id is not a UUID');
      appendRecords(streamName, events);
      appends += 1;
      if (options.systemEventEvery && appends % options.systemEventEvery === 0) {
        appendRecords('$stats-127.0.0.1:2113', [
          { type: '$statsCollected', id: crypto.randomUUID(), data: { proc: 1 }, metadata: undefined },
        ]);
      }
      notify();
      const lastOfStream = [...log].reverse().find((r) => r.streamId === streamName)!;
      return {
        success: true,
        nextExpectedRevision: lastOfStream.revision,
        position: { commit: lastOfStream.position, prepare: lastOfStream.position },
      };
    },

    readStream(streamName, { fromRevision, direction, maxCount }) {
      return finiteRead(() => {
        if (streams.get(streamName)?.deleted) throw StreamDeletedError.fromStreamName(streamName);
        const records = log.filter((r) => r.streamId === streamName);
        if (records.length === 0) throw new StreamNotFoundError(undefined, streamName);
        if (direction === 'forwards') {
          const from =
            fromRevision === 'start' ? 0n : fromRevision === 'end' ? TOMBSTONE_REVISION : fromRevision;
          return records
            .filter((r) => r.revision >= from)
            .slice(0, maxCount)
            .map(toResolved);
        }
        const from =
          fromRevision === 'end' ? TOMBSTONE_REVISION : fromRevision === 'start' ? 0n : fromRevision;
        return records
          .filter((r) => r.revision <= from)
          .reverse()
          .slice(0, maxCount)
          .map(toResolved);
      });
    },

    readAll({ fromPosition, direction, maxCount }) {
      return finiteRead(() => {
        if (direction === 'forwards') {
          const from =
            fromPosition === 'start' ? 0n : fromPosition === 'end' ? nextPosition : fromPosition.commit;
          return log
            .filter((r) => r.position >= from)
            .slice(0, maxCount)
            .map(toResolved);
        }
        const before =
          fromPosition === 'end' ? nextPosition : fromPosition === 'start' ? 0n : fromPosition.commit;
        return log
          .filter((r) => r.position < before)
          .reverse()
          .slice(0, maxCount)
          .map(toResolved);
      });
    },

    subscribeToAll({ fromPosition, filter }, { highWaterMark }) {
      return subscription(
        highWaterMark,
        () => (fromPosition === 'start' ? -1n : fromPosition === 'end' ? nextPosition : fromPosition.commit),
        (record) => passes(filter, record),
        (record) => record.position,
        filter.checkpointReached
          ? (position) => filter.checkpointReached!(undefined as never, position)
          : undefined,
      );
    },

    subscribeToStream(streamName, { fromRevision }, { highWaterMark }) {
      return subscription(
        highWaterMark,
        () =>
          fromRevision === 'start'
            ? -1n
            : fromRevision === 'end'
              ? (streams.get(streamName)?.last ?? -1n)
              : fromRevision,
        (record) => record.streamId === streamName,
        (record) => record.revision,
      );
    },

    async tombstoneStream(streamName) {
      await new Promise((resolve) => setImmediate(resolve));
      if (down) throw unavailable();
      const state = streams.get(streamName) ?? { last: -1n, deleted: false };
      if (state.deleted) throw StreamDeletedError.fromStreamName(streamName);
      write(streamName, TOMBSTONE_REVISION, '$streamDeleted', crypto.randomUUID(), {}, undefined);
      streams.set(streamName, { ...state, deleted: true });
      notify();
      return {};
    },

    async dispose() {
      for (const stream of pumps.keys()) stream.destroy();
      pumps.clear();
    },
  };

  return {
    client,
    setDown(value) {
      down = value;
      if (!value) return;
      for (const stream of [...pumps.keys()]) {
        pumps.delete(stream);
        stream.destroy(unavailable());
      }
    },
    scavenge() {
      log = log.filter((r) => r.type === '$streamDeleted' || !streams.get(r.streamId)?.deleted);
    },
    records: () => log,
    openSubscriptions: () => pumps.size,
  };
}
