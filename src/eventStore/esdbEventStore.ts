import { EventStoreDBClient, NO_STREAM } from '@eventstore/db-client';
import { silentLogger, type Logger } from '../log.js';
import type { EsdbClient } from './esdbClient.js';
import { bounded } from './esdbClient.js';
import { createEsdbReads, versionOf } from './esdbReads.js';
import { createScavengeScheduler, scavengeTargetFrom, startScavenge } from './esdbScavenge.js';
import { subscribeToAllOn, subscribeToStreamOn } from './esdbSubscription.js';
import {
  fromResolved,
  isStreamDeleted,
  metadataEventData,
  portMetadataFrom,
  positionOfResolved,
  positionToNumber,
  toEventData,
  toExpectedRevision,
  translateError,
  versionFromRevision,
} from './esdbTranslate.js';
import { createStreamVisibility } from './esdbVisibility.js';
import type { AppendResult, EventStore, ExpectedVersion, RecordedEvent, StreamInfo } from './eventStore.js';
import {
  EventStoreUnavailableError,
  StreamDeletedError,
  WrongExpectedVersionError,
  expectedVersionHolds,
  matchesFilter,
} from './eventStore.js';
import { createSubscriptionRegistry } from './subscription.js';

export interface EsdbEventStoreOptions {
  /**
   * `esdb://[user:password@]host:2113[,host2:2113]?tls=false` or `esdb+discover://…`. On a secure
   * server the user must be an admin (reading $all and starting scavenges need it by default).
   */
  connectionString: string;
  log?: Logger;
  /** A read that makes no progress for this long fails as unavailable (ms, default 10 000). */
  requestTimeoutMs?: number;
  /**
   * How long "this stream still exists" is trusted when hiding deleted streams' events from $all
   * (ms, default 5 000): the most time another process's deletion can go unnoticed here.
   */
  liveStreamCacheMs?: number;
  /** Start a scavenge this long after a deletion, coalescing a burst (ms, default 60 000); null: never. */
  scavengeDelayMs?: number | null;
}

/**
 * The event store on EventStoreDB (22.10 or later) through `@eventstore/db-client`. Synchronous:
 * the client connects on first use and reconnects by itself; while the server is away calls fail
 * with `EventStoreUnavailableError` (at once when it refuses connections, after
 * `requestTimeoutMs` when it does not answer) and subscriptions wait and resume where they were.
 * Subscriptions are the server's catch-up subscriptions, filtered on the server. A deleted stream
 * is tombstoned (appends then fail with `StreamDeletedError`), hidden from $all at once in this
 * process and within `liveStreamCacheMs` in others, and removed from disk by the scavenge this
 * adapter requests (see esdbScavenge.ts for what an operator must add in a cluster).
 */
export function createEsdbEventStore(options: EsdbEventStoreOptions): EventStore {
  const client = EventStoreDBClient.connectionString(options.connectionString);
  const target = options.scavengeDelayMs === null ? null : scavengeTargetFrom(options.connectionString);
  return createEsdbEventStoreOnClient(client, {
    ...options,
    startScavenge: target ? () => startScavenge(target) : null,
  });
}

export interface EsdbAdapterOptions extends Omit<EsdbEventStoreOptions, 'connectionString'> {
  startScavenge: (() => Promise<{ scavengeId: string | null }>) | null;
}

const PAGE = 500;
const HEAD_PAGE = 100;

/** The same adapter over any client of the `EsdbClient` shape (tests give it a simulated server). */
export function createEsdbEventStoreOnClient(client: EsdbClient, options: EsdbAdapterOptions): EventStore {
  const log = options.log ?? silentLogger;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const reads = createEsdbReads(client, timeoutMs);
  const visibility = createStreamVisibility({
    check: async (stream) => (await reads.lastEventOf(stream)).state,
    ttlMs: options.liveStreamCacheMs ?? 5_000,
  });
  const subscriptions = createSubscriptionRegistry();
  const scavenger = options.startScavenge
    ? createScavengeScheduler({
        delayMs: options.scavengeDelayMs ?? 60_000,
        start: options.startScavenge,
        log,
      })
    : null;
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new EventStoreUnavailableError('event store is closed');
  };

  /** An empty append writes nothing (the server would log an empty record): check and report. */
  async function checkOnly(stream: string, expected: ExpectedVersion): Promise<AppendResult> {
    const last = await reads.lastEventOf(stream);
    if (last.state === 'deleted') throw new StreamDeletedError(stream);
    const current = versionOf(last);
    if (!expectedVersionHolds(expected, current))
      throw new WrongExpectedVersionError(stream, expected, current);
    return {
      nextExpectedVersion: current,
      position: last.state === 'live' ? positionToNumber(last.event.position) : 0,
    };
  }

  return {
    async append(stream, events, appendOptions = {}) {
      assertOpen();
      const expected = appendOptions.expectedVersion ?? 'any';
      if (events.length === 0) return checkOnly(stream, expected);
      try {
        const result = await bounded(
          client.appendToStream(stream, events.map(toEventData), {
            expectedRevision: toExpectedRevision(expected),
          }),
          timeoutMs,
        );
        // Only with `throwOnAppendFailure=false` in the connection string does a conflict resolve
        // (and the client then misreports the current revision): read the actual version.
        if (!result.success) {
          throw new WrongExpectedVersionError(stream, expected, versionOf(await reads.lastEventOf(stream)));
        }
        // Servers always report the position; were one not to, the stream's last event is at or
        // after ours, which is as good for waiting on projections.
        const position = result.position
          ? positionToNumber(result.position)
          : (await checkOnly(stream, 'any')).position;
        return { nextExpectedVersion: versionFromRevision(result.nextExpectedRevision), position };
      } catch (error) {
        throw translateError(error, { stream, expected });
      }
    },

    async readStream(stream, readOptions = {}) {
      assertOpen();
      return reads.readStream(stream, readOptions);
    },

    async readAll(readOptions = {}) {
      assertOpen();
      const limit = readOptions.maxCount ?? Number.POSITIVE_INFINITY;
      const result: RecordedEvent[] = [];
      let cursor = readOptions.fromPosition ?? 0;
      while (result.length < limit) {
        // System events, filtered-out and deleted streams' events shrink a page: with a filter,
        // read full pages; without one, ask for what is missing.
        const count = readOptions.filter ? PAGE : Math.min(PAGE, limit - result.length);
        const page = await reads.readAllPage(cursor, count);
        const candidates = page.events
          .map(fromResolved)
          .filter(
            (event): event is RecordedEvent => event !== null && matchesFilter(event, readOptions.filter),
          );
        result.push(...(await visibility.visible(candidates)).slice(0, limit - result.length));
        if (page.exhausted || page.last === null) break;
        cursor = page.last;
      }
      return result;
    },

    subscribeToAll(subscribeOptions = {}) {
      const subscription = subscriptions.track(subscribeToAllOn(client, visibility, subscribeOptions, log));
      if (closed) subscription.close();
      return subscription;
    },

    subscribeToStream(stream, subscribeOptions = {}) {
      const subscription = subscriptions.track(subscribeToStreamOn(client, stream, subscribeOptions, log));
      if (closed) subscription.close();
      return subscription;
    },

    async streamInfo(stream): Promise<StreamInfo> {
      assertOpen();
      const [last, metadata] = await Promise.all([reads.lastEventOf(stream), reads.rawMetadataOf(stream)]);
      if (last.state === 'deleted') return { version: 0, deleted: true, metadata: {} };
      return {
        version: versionOf(last),
        deleted: false,
        metadata: portMetadataFrom(metadata.raw),
      };
    },

    async setStreamMetadata(stream, metadata) {
      assertOpen();
      // Read-modify-write of the metadata stream, expecting the revision read: a concurrent
      // change of the same stream's metadata makes us read again rather than overwrite it.
      for (let attempt = 1; ; attempt += 1) {
        const current = await reads.rawMetadataOf(stream);
        try {
          await bounded(
            client.appendToStream(`$$${stream}`, [metadataEventData(current.raw, metadata)], {
              expectedRevision: current.revision ?? NO_STREAM,
            }),
            timeoutMs,
          );
          return;
        } catch (error) {
          const translated = translateError(error, { stream });
          if (!(translated instanceof WrongExpectedVersionError) || attempt >= 5) throw translated;
        }
      }
    },

    async deleteStream(stream) {
      assertOpen();
      try {
        await bounded(client.tombstoneStream(stream), timeoutMs);
      } catch (error) {
        // Deleting twice is not an error: the stream is deleted, as asked.
        if (!isStreamDeleted(error)) throw translateError(error, { stream });
      }
      visibility.markDeleted(stream);
    },

    async scrub() {
      assertOpen();
      // Tombstoned events leave the disk with a scavenge; the scheduler coalesces requests.
      scavenger?.requested();
    },

    async headPosition(filter) {
      assertOpen();
      // Newest first, past system events and deleted streams' events: the newest event a
      // subscription would deliver, so a projection that has seen it knows it is caught up.
      let before: number | null = null;
      for (;;) {
        const page = await reads.readAllBackwards(before, HEAD_PAGE);
        for (const resolved of page.events) {
          before = positionOfResolved(resolved);
          const event = fromResolved(resolved);
          if (event && matchesFilter(event, filter) && (await visibility.isVisible(event.streamName)))
            return event.position;
        }
        if (page.exhausted || page.events.length === 0) return 0;
      }
    },

    async health() {
      if (closed) return { healthy: false, reason: 'event store is closed' };
      try {
        await reads.readAllBackwards(null, 1);
        return { healthy: true, reason: null };
      } catch (error) {
        return { healthy: false, reason: error instanceof Error ? error.message : String(error) };
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      subscriptions.closeAll();
      await scavenger?.close();
      await client.dispose();
    },
  };
}
