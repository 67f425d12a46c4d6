import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Metadata } from '../domain/shared/index.js';
import type {
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
import {
  EventStoreUnavailableError,
  StreamDeletedError,
  WrongExpectedVersionError,
  expectedVersionHolds,
} from './eventStore.js';
import {
  createAppendSignal,
  createSubscriptionRegistry,
  pullAllSubscription,
  pullStreamSubscription,
} from './subscription.js';

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
}

interface PendingAppend {
  stream: string;
  events: readonly EventToAppend[];
  options: AppendOptions;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

interface EventRow {
  position: number;
  stream: string;
  version: number;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  stream TEXT NOT NULL,
  version INTEGER NOT NULL,
  event_id TEXT NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  metadata TEXT NOT NULL,
  recorded_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS events_by_stream ON events (stream, version);
CREATE TABLE IF NOT EXISTS streams (
  stream TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  deleted INTEGER NOT NULL DEFAULT 0,
  metadata TEXT NOT NULL DEFAULT '{}'
) WITHOUT ROWID;
`;

const COLUMNS = 'position, stream, version, event_id, type, data, metadata, recorded_at';

/**
 * The embedded event store: one SQLite file in WAL mode with `synchronous=FULL`, so an append is
 * acknowledged only after its commit is fsync'd. Appends waiting at the same moment share one
 * transaction and one fsync (group commit); each runs in its own savepoint so a version conflict
 * fails that append alone. Deleted content is zeroed (`secure_delete`) and the WAL truncated, so a
 * deleted stream leaves nothing readable in the files.
 */
export function createSqliteEventStore(options: SqliteEventStoreOptions): EventStore {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('secure_delete = ON');
  db.pragma('busy_timeout = 10000');
  db.exec(SCHEMA);

  const maxBatch = options.maxBatch ?? 512;
  const appended = createAppendSignal(options.pollIntervalMs ?? null);
  const stopExternal = options.externalAppends?.(() => appended.notify());
  const subscriptions = createSubscriptionRegistry();

  const selectStream = db.prepare<[string], { version: number; deleted: number; metadata: string }>(
    'SELECT version, deleted, metadata FROM streams WHERE stream = ?',
  );
  const insertEvent = db.prepare(
    'INSERT INTO events (stream, version, event_id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const upsertStreamVersion = db.prepare(
    'INSERT INTO streams (stream, version) VALUES (?, ?) ON CONFLICT (stream) DO UPDATE SET version = excluded.version',
  );
  const readForwards = db.prepare<[string, number, number], EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE stream = ? AND version >= ? ORDER BY version LIMIT ?`,
  );
  const readBackwards = db.prepare<[string, number, number], EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE stream = ? AND version <= ? ORDER BY version DESC LIMIT ?`,
  );
  const readAllAfter = db.prepare<[number, number], EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`,
  );
  const selectHead = db.prepare<[], { head: number | null }>('SELECT max(position) AS head FROM events');
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
  const filteredReads = new Map<string, Database.Statement<unknown[], EventRow>>();

  let pending: PendingAppend[] = [];
  let flushScheduled = false;
  let closed = false;

  function appendOne(item: PendingAppend, recordedAt: string): AppendResult {
    const row = selectStream.get(item.stream);
    if (row?.deleted) throw new StreamDeletedError(item.stream);
    const current = row?.version ?? 0;
    const expected = item.options.expectedVersion ?? 'any';
    if (!expectedVersionHolds(expected, current))
      throw new WrongExpectedVersionError(item.stream, expected, current);
    if (item.events.length === 0) {
      return { nextExpectedVersion: current, position: lastPositionOf(item.stream) };
    }
    let version = current;
    let position = 0;
    for (const event of item.events) {
      version += 1;
      const info = insertEvent.run(
        item.stream,
        version,
        event.id ?? randomUUID(),
        event.type,
        JSON.stringify(event.data),
        JSON.stringify(event.metadata),
        recordedAt,
      );
      position = Number(info.lastInsertRowid);
    }
    upsertStreamVersion.run(item.stream, version);
    return { nextExpectedVersion: version, position };
  }

  function lastPositionOf(stream: string): number {
    const [last] = readBackwards.all(stream, Number.MAX_SAFE_INTEGER, 1);
    return last?.position ?? 0;
  }

  // Each append runs as a nested transaction (a savepoint): its failure rolls back only itself.
  const appendInSavepoint = db.transaction(appendOne);

  const commitBatch = db.transaction((batch: PendingAppend[], recordedAt: string) =>
    batch.map((item): { ok: true; result: AppendResult } | { ok: false; error: unknown } => {
      try {
        return { ok: true, result: appendInSavepoint(item, recordedAt) };
      } catch (error) {
        return { ok: false, error };
      }
    }),
  );

  function flush(): void {
    flushScheduled = false;
    const batch = pending.slice(0, maxBatch);
    pending = pending.slice(batch.length);
    if (pending.length > 0) scheduleFlush();
    if (batch.length === 0) return;
    let outcomes: ReturnType<typeof commitBatch>;
    try {
      outcomes = commitBatch.immediate(batch, new Date().toISOString());
    } catch (error) {
      const failure = new EventStoreUnavailableError(`append failed: ${(error as Error).message}`, {
        cause: error,
      });
      for (const item of batch) item.reject(failure);
      return;
    }
    let anyAppended = false;
    outcomes.forEach((outcome, index) => {
      const item = batch[index]!;
      if (outcome.ok) {
        anyAppended ||= item.events.length > 0;
        item.resolve(outcome.result);
      } else {
        item.reject(outcome.error);
      }
    });
    if (anyAppended) appended.notify();
  }

  function scheduleFlush(): void {
    if (flushScheduled) return;
    flushScheduled = true;
    // setImmediate, not a microtask: lets every append issued in this turn of the event loop
    // (typically by callers whose previous append just resolved) join the same commit.
    setImmediate(flush);
  }

  function toRecorded(row: EventRow): RecordedEvent {
    return {
      id: row.event_id,
      type: row.type,
      data: JSON.parse(row.data) as Record<string, unknown>,
      metadata: JSON.parse(row.metadata) as Metadata,
      streamName: row.stream,
      streamVersion: row.version,
      position: row.position,
      recordedAt: row.recorded_at,
    };
  }

  function filteredStatement(filter: EventFilter): Database.Statement<unknown[], EventRow> {
    const types = filter.eventTypes?.length ?? 0;
    const prefixes = filter.streamPrefixes?.length ?? 0;
    const key = `${types}:${prefixes}`;
    let statement = filteredReads.get(key);
    if (!statement) {
      const clauses = ['position > ?'];
      if (filter.eventTypes) clauses.push(`type IN (${Array(types).fill('?').join(', ')})`);
      if (filter.streamPrefixes) {
        clauses.push(`(${Array(prefixes).fill('substr(stream, 1, ?) = ?').join(' OR ')})`);
      }
      statement = db.prepare<unknown[], EventRow>(
        `SELECT ${COLUMNS} FROM events WHERE ${clauses.join(' AND ')} ORDER BY position LIMIT ?`,
      );
      filteredReads.set(key, statement);
    }
    return statement;
  }

  function readAllSync(options: ReadAllOptions): RecordedEvent[] {
    const from = options.fromPosition ?? 0;
    const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const filter = options.filter;
    if (!filter || (!filter.eventTypes && !filter.streamPrefixes))
      return readAllAfter.all(from, limit).map(toRecorded);
    const params: unknown[] = [from, ...(filter.eventTypes ?? [])];
    for (const prefix of filter.streamPrefixes ?? []) params.push(prefix.length, prefix);
    params.push(limit);
    return filteredStatement(filter)
      .all(...params)
      .map(toRecorded);
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
      return rows.map(toRecorded);
    },

    async readAll(readOptions = {}) {
      assertOpen();
      return readAllSync(readOptions);
    },

    subscribeToAll(subscribeOptions = {}) {
      return subscriptions.track(
        pullAllSubscription(
          appended,
          (position, max) => readAllAfter.all(position, max).map(toRecorded),
          subscribeOptions,
        ),
      );
    },

    subscribeToStream(stream, subscribeOptions = {}) {
      return subscriptions.track(
        pullStreamSubscription(
          appended,
          (fromVersion, max) => readForwards.all(stream, fromVersion, max).map(toRecorded),
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
      // secure_delete zeroed the freed cells and pages, but the WAL still holds older copies of
      // those pages: copy everything back into the database and truncate the WAL to nothing.
      for (let attempt = 0; attempt < 50; attempt += 1) {
        const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
        if (result?.busy === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new EventStoreUnavailableError(
        `stream ${stream} deleted, but the WAL could not be truncated (busy)`,
      );
    },

    async headPosition() {
      assertOpen();
      return selectHead.get()?.head ?? 0;
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
      while (pending.length > 0) flush();
      closed = true;
      stopExternal?.();
      subscriptions.closeAll();
      db.close();
    },
  };
}
