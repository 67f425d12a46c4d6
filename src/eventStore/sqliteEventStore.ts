import { recordedEventOf, type EventRow as StoredRow } from './eventRow.js';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type {
  AllBatch,
  AppendOptions,
  AppendResult,
  EventFilter,
  EventStore,
  EventToAppend,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamInfo,
} from './eventStore.js';
import { EventStoreUnavailableError, matchesFilter } from './eventStore.js';
import { createAppendJournal } from './appendJournal.js';
import { appendError, configureEventDatabase, type SerializedAppend } from './sqliteAppends.js';
import { inThreadCommitter, workerThreadCommitter, type AppendCommitter } from './sqliteAppendThread.js';
import {
  createAppendSignal,
  createSubscriptionRegistry,
  filterScanned,
  pullAllSubscription,
  pullStreamSubscription,
} from './subscription.js';
import { LIMIT_BOUND } from '../sqliteLimit.js';

export interface SqliteEventStoreOptions {
  /** Database file; created with its folder when missing. `:memory:` for a throw-away store. */
  path: string;
  /** Most appends committed together in one transaction (group commit). */
  maxBatch?: number;
  /**
   * Other processes append to the same file: subscriptions also look for new events this often (ms).
   * Null when this process is the only writer (then appends wake subscribers directly).
   */
  pollIntervalMs?: number | null;
  /**
   * Wake-ups for appends made by other processes (e.g. a bus notification): subscriptions look for
   * new events at once instead of at the next poll. Returns an unsubscribe function.
   */
  externalAppends?: (wake: () => void) => () => void;
  /**
   * Commit in a worker thread (the default for a file): each commit waits for its fsync, which then
   * blocks that thread instead of the caller's. False commits on the caller's thread.
   */
  appendThread?: boolean;
}

interface PendingAppend {
  stream: string;
  events: readonly EventToAppend[];
  options: AppendOptions;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

type EventRow = StoredRow<number>;

const COLUMNS = 'position, stream, version, event_id, type, data, metadata, recorded_at';

/** How far behind the head a filtered read scans every event's type instead of seeking each type. */
const NEAR_HEAD = 64;

/**
 * The embedded event store: one SQLite file in WAL mode with `synchronous=FULL`, so an append is
 * acknowledged only after its commit is fsync'd. Commits run in a worker thread with its own
 * connection (see `sqliteAppendWorker.ts`): a fsync took 0.1–2 ms here, several per upload, and
 * they blocked the thread that serves requests. Appends waiting at the same moment, or while a
 * commit is under way, share the next transaction and fsync (group commit); each runs in its own
 * savepoint so a version conflict fails that append alone. Reads filtered by event type use an
 * index on the type, so a subscriber of rare events does not scan the others, and skip the log
 * when this process's own latest appends show nothing for them (`appendJournal.ts`). Deleted
 * content is zeroed (`secure_delete`); `scrub` truncates the WAL, which still holds older copies of
 * those pages, for a batch of deletions.
 */
export function createSqliteEventStore(options: SqliteEventStoreOptions): EventStore {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  configureEventDatabase(db);
  const committer: AppendCommitter =
    options.path === ':memory:' || options.appendThread === false
      ? inThreadCommitter(db)
      : workerThreadCommitter(options.path, () => inThreadCommitter(db));

  const maxBatch = options.maxBatch ?? 512;
  const appended = createAppendSignal(options.pollIntervalMs ?? null);
  const stopExternal = options.externalAppends?.(() => appended.notify());
  const subscriptions = createSubscriptionRegistry();

  const selectStream = db.prepare<[string], { version: number; deleted: number; metadata: string }>(
    'SELECT version, deleted, metadata FROM streams WHERE stream = ?',
  );
  const readForwards = db.prepare<[string, number, number], EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE stream = ? AND version >= ? ORDER BY version ${LIMIT_BOUND}`,
  );
  const readBackwards = db.prepare<[string, number, number], EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE stream = ? AND version <= ? ORDER BY version DESC ${LIMIT_BOUND}`,
  );
  const readAllAfter = db.prepare<[number, number], EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position ${LIMIT_BOUND}`,
  );
  const selectHead = db.prepare<[], { head: number | null }>('SELECT max(position) AS head FROM events');
  const selectTypeHead = db.prepare<[string], { head: number | null }>(
    'SELECT max(position) AS head FROM events WHERE type = ?',
  );
  const readAllBefore = db.prepare<[number, number], EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE position < ? ORDER BY position DESC ${LIMIT_BOUND}`,
  );
  const upsertStreamMetadata = db.prepare(
    'INSERT INTO streams (stream, version, metadata) VALUES (?, 0, ?) ON CONFLICT (stream) DO UPDATE SET metadata = excluded.metadata',
  );
  const deleteEvents = db.prepare('DELETE FROM events WHERE stream = ?');
  const markDeleted = db.prepare(
    `INSERT INTO streams (stream, version, deleted, metadata) VALUES (?, 0, 1, '{}')
     ON CONFLICT (stream) DO UPDATE SET deleted = 1, metadata = '{}'`,
  );
  const deleteInTransaction = db.transaction((stream: string) => {
    deleteEvents.run(stream);
    markDeleted.run(stream);
  });
  /** Filtered reads: one type's positions from its index range, then each event kept by position. */
  const typePositions = db.prepare<[string, number, number], { position: number }>(
    `SELECT position FROM events INDEXED BY events_by_type WHERE type = ? AND position > ? ORDER BY position ${LIMIT_BOUND}`,
  );
  const selectAt = db.prepare<[number], EventRow>(`SELECT ${COLUMNS} FROM events WHERE position = ?`);
  const typesAfter = db.prepare<[number, number], { position: number; type: string }>(
    `SELECT position, type FROM events WHERE position > ? ORDER BY position ${LIMIT_BOUND}`,
  );
  const journal = createAppendJournal();
  /**
   * This process is the log's only writer (no polling, no announcements of other processes'
   * appends): the newest position it appended or read is the log's head, and a subscription there
   * has nothing to read.
   */
  const onlyWriter = (options.pollIntervalMs ?? null) === null && !options.externalAppends;
  let knownHead = selectHead.get()?.head ?? 0;
  const pending: PendingAppend[] = [];
  let flushScheduled = false;
  let committing: Promise<void> | null = null;
  let closed = false;

  const serialize = (item: PendingAppend): SerializedAppend => ({
    stream: item.stream,
    expectedVersion: item.options.expectedVersion ?? 'any',
    events: item.events.map((event) => ({
      id: event.id ?? randomUUID(),
      type: event.type,
      data: JSON.stringify(event.data),
      metadata: JSON.stringify(event.metadata),
    })),
  });

  /** Commits the appends waiting now (up to `maxBatch`); those that arrive meanwhile wait for the next. */
  function flush(): void {
    flushScheduled = false;
    if (committing || pending.length === 0) return;
    const batch: PendingAppend[] = [];
    const serialized: SerializedAppend[] = [];
    for (const item of pending.splice(0, maxBatch)) {
      try {
        serialized.push(serialize(item));
        batch.push(item);
      } catch (error) {
        // Data that cannot be written as JSON (a cycle, a BigInt) fails its append alone.
        item.reject(error);
      }
    }
    if (batch.length === 0) {
      if (pending.length > 0) scheduleFlush();
      return;
    }
    const recordedAt = new Date().toISOString();
    committing = committer
      .commit(serialized, recordedAt)
      .then(
        (outcomes) => {
          const appendedTo: string[] = [];
          outcomes.forEach((outcome, index) => {
            const item = batch[index]!;
            if (outcome.ok) {
              if (item.events.length > 0) appendedTo.push(item.stream);
              // An append's events take consecutive positions and versions, ending at the ones it reports.
              const { position, nextExpectedVersion } = outcome.result;
              const appendedEvents = serialized[index]!.events;
              appendedEvents.forEach((event, i) => {
                const back = appendedEvents.length - 1 - i;
                journal.record({
                  position: position - back,
                  stream: item.stream,
                  version: nextExpectedVersion - back,
                  event_id: event.id,
                  type: event.type,
                  data: event.data,
                  metadata: event.metadata,
                  recorded_at: recordedAt,
                });
              });
              knownHead = Math.max(knownHead, position);
              item.resolve(outcome.result);
            } else {
              item.reject(appendError(outcome.failure));
            }
          });
          if (appendedTo.length > 0) appended.notify(appendedTo);
        },
        (error: unknown) => {
          const failure = new EventStoreUnavailableError(`append failed: ${(error as Error).message}`, {
            cause: error,
          });
          for (const item of batch) item.reject(failure);
        },
      )
      .finally(() => {
        committing = null;
        if (pending.length > 0) scheduleFlush();
      });
  }

  function scheduleFlush(): void {
    if (flushScheduled) return;
    flushScheduled = true;
    // setImmediate, not a microtask: lets every append issued in this turn of the event loop
    // (typically by callers whose previous append just resolved) join the same commit.
    setImmediate(flush);
  }

  /**
   * The first `maxCount` positions of events of these (distinct) types after `position`, in order.
   * Positions come from the type index alone (it covers them), one seek per type, merged here; only
   * the page's own rows are then read whole. One compound statement (a UNION ALL of the seeks)
   * built a temporary B-tree per type on every read, ~45 µs each: a subscription with ten types
   * cost 0.45 ms per wake-up even with nothing to read, the main thread's largest item while small
   * files were ingested.
   */
  function positionsOfTypes(
    types: readonly string[],
    position: number,
    maxCount: number,
    head: number,
  ): number[] {
    const positions: number[] = [];
    // A subscription that follows the log is a few events behind: one scan of (position, type)
    // over those positions costs less than a seek per type.
    if (head - position <= NEAR_HEAD) {
      const wanted = new Set(types);
      for (const row of typesAfter.all(position, NEAR_HEAD)) {
        if (wanted.has(row.type)) positions.push(row.position);
      }
      return positions.length > maxCount ? positions.slice(0, maxCount) : positions;
    }
    for (const type of types) {
      for (const row of typePositions.all(type, position, maxCount)) positions.push(row.position);
    }
    positions.sort((a, b) => a - b);
    return positions.length > maxCount ? positions.slice(0, maxCount) : positions;
  }

  /**
   * The events after `position` that match `filter`, at most `maxCount`, and the checkpoint the read
   * reached. With event types, only those events are read (through the type index) and, when fewer
   * than `maxCount` match, the checkpoint is the head of the log as of the same snapshot. Stream
   * prefixes are applied to what was read.
   */
  const readFilteredFromLog = db.transaction(
    (position: number, maxCount: number, filter: EventFilter | undefined): AllBatch => {
      const types = filter?.eventTypes ? [...new Set(filter.eventTypes)] : null;
      if (!types)
        return filterScanned(readAllAfter.all(position, maxCount).map(recordedEventOf), position, filter);
      if (types.length === 0)
        return { events: [], checkpoint: Math.max(position, selectHead.get()?.head ?? 0) };
      const head = selectHead.get()?.head ?? 0;
      const rows = positionsOfTypes(types, position, maxCount, head).map((at) => selectAt.get(at)!);
      const checkpoint = rows.length === maxCount ? rows.at(-1)!.position : Math.max(position, head);
      const events = rows.map(recordedEventOf);
      const prefixes = filter?.streamPrefixes;
      return {
        events: prefixes
          ? events.filter((event) => prefixes.some((p) => event.streamName.startsWith(p)))
          : events,
        checkpoint,
      };
    },
  );

  /** A filtered read, answered by the journal of this process's latest appends when it can. */
  function readFiltered(position: number, maxCount: number, filter: EventFilter | undefined): AllBatch {
    return journal.readAfter(position, maxCount, filter) ?? readFilteredFromLog(position, maxCount, filter);
  }

  /** A subscription's read: at the head of a log only this process writes, there is nothing to read. */
  function readFollowing(position: number, maxCount: number, filter: EventFilter | undefined): AllBatch {
    if (onlyWriter && position >= knownHead) return { events: [], checkpoint: position };
    return readFiltered(position, maxCount, filter);
  }

  /** The newest position among events of these types: one index seek per type. */
  function headOfTypes(types: readonly string[]): number {
    let head = 0;
    for (const type of new Set(types)) head = Math.max(head, selectTypeHead.get(type)?.head ?? 0);
    return head;
  }

  /** The newest matching event, scanning backwards in pages (stream prefixes have no index). */
  function readBackwardsFiltered(filter: EventFilter): RecordedEvent[] {
    let before = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const page = readAllBefore.all(before, 5_000).map(recordedEventOf);
      const found = page.find((event) => matchesFilter(event, filter));
      if (found) return [found];
      if (page.length < 5_000) return [];
      before = page.at(-1)!.position;
    }
  }

  function readAllSync(options: ReadAllOptions): RecordedEvent[] {
    const from = options.fromPosition ?? 0;
    const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const filter = options.filter;
    if (!filter || (!filter.eventTypes && !filter.streamPrefixes))
      return readAllAfter.all(from, limit).map(recordedEventOf);
    // Scan in pages until `limit` matching events are found or the log ends.
    const events: RecordedEvent[] = [];
    let cursor = from;
    for (;;) {
      const page = Math.min(5_000, limit - events.length);
      const batch = readFiltered(cursor, page, filter);
      events.push(...batch.events);
      if (events.length >= limit || batch.checkpoint <= cursor) return events.slice(0, limit);
      cursor = batch.checkpoint;
    }
  }

  function assertOpen(): void {
    if (closed) throw new EventStoreUnavailableError('event store is closed');
  }

  return {
    append(stream, events, appendOptions = {}) {
      assertOpen();
      return new Promise<AppendResult>((resolve, reject) => {
        pending.push({ stream, events, options: appendOptions, resolve, reject });
        scheduleFlush();
      });
    },

    async readStream(stream, readOptions: ReadStreamOptions = {}) {
      assertOpen();
      const limit = readOptions.maxCount ?? Number.MAX_SAFE_INTEGER;
      const rows =
        readOptions.direction === 'backwards'
          ? readBackwards.all(stream, readOptions.fromVersion ?? Number.MAX_SAFE_INTEGER, limit)
          : readForwards.all(stream, readOptions.fromVersion ?? 1, limit);
      return rows.map(recordedEventOf);
    },

    async readAll(readOptions = {}) {
      assertOpen();
      return readAllSync(readOptions);
    },

    subscribeToAll(subscribeOptions = {}) {
      return subscriptions.track(
        pullAllSubscription(
          appended,
          (position, max) => readFollowing(position, max, subscribeOptions.filter),
          subscribeOptions,
        ),
      );
    },

    subscribeToStream(stream, subscribeOptions = {}) {
      return subscriptions.track(
        pullStreamSubscription(
          appended,
          stream,
          (fromVersion, max) => readForwards.all(stream, fromVersion, max).map(recordedEventOf),
          subscribeOptions,
        ),
      );
    },

    async streamInfo(stream): Promise<StreamInfo> {
      assertOpen();
      const row = selectStream.get(stream);
      return {
        version: row && row.deleted === 0 ? row.version : 0,
        deleted: row?.deleted === 1,
        metadata: row ? (JSON.parse(row.metadata) as Record<string, unknown>) : {},
      };
    },

    async setStreamMetadata(stream, metadata) {
      assertOpen();
      upsertStreamMetadata.run(stream, JSON.stringify(metadata));
    },

    async deleteStream(stream) {
      assertOpen();
      deleteInTransaction.immediate(stream);
      journal.forget(stream);
    },

    async scrub() {
      assertOpen();
      // secure_delete zeroed the freed cells and pages, but the WAL still holds older copies of
      // those pages: copy everything back into the database and truncate the WAL to nothing.
      // Readers of other processes can hold the WAL for a moment: retry for up to a second.
      for (let attempt = 0; attempt < 50; attempt += 1) {
        const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
        if (result?.busy === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new EventStoreUnavailableError(
        'the WAL could not be truncated (busy): deleted content may remain in it',
      );
    },

    async headPosition(filter) {
      assertOpen();
      if (!filter || (!filter.eventTypes && !filter.streamPrefixes)) return selectHead.get()?.head ?? 0;
      if (filter.eventTypes && !filter.streamPrefixes) return headOfTypes(filter.eventTypes);
      const [newest] = readBackwardsFiltered(filter);
      return newest?.position ?? 0;
    },

    async health() {
      if (closed) return { healthy: false, reason: 'event store is closed' };
      try {
        selectHead.get();
        return { healthy: true, reason: null };
      } catch (error) {
        return { healthy: false, reason: (error as Error).message };
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      // What was appended before the close is committed first.
      while (committing || pending.length > 0) {
        if (committing) await committing;
        else flush();
      }
      stopExternal?.();
      subscriptions.closeAll();
      await committer.close();
      db.close();
    },
  };
}
