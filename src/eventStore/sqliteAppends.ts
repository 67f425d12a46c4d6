import type Database from 'better-sqlite3';
import type { AppendResult, ExpectedVersion } from './eventStore.js';
import { StreamDeletedError, WrongExpectedVersionError, expectedVersionHolds } from './eventStore.js';

/**
 * The write half of the embedded event store: committing a group of appends in one transaction,
 * each in its own savepoint so a version conflict fails that append alone. It runs on the thread
 * that holds the writing connection (a worker thread of the store's, or the caller's for an
 * in-memory store), so what crosses between them is plain data: events already serialised, and
 * outcomes whose failures name their kind instead of being error objects.
 */

const EVENT_STORE_SCHEMA = `
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
CREATE INDEX IF NOT EXISTS events_by_type ON events (type, position);
CREATE TABLE IF NOT EXISTS streams (
  stream TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  deleted INTEGER NOT NULL DEFAULT 0,
  metadata TEXT NOT NULL DEFAULT '{}'
) WITHOUT ROWID;
`;

/**
 * WAL with `synchronous=FULL`: a commit returns once it is fsync'd. Deleted content is zeroed
 * (`secure_delete`). Every connection to the file, reading or writing, is opened this way.
 */
export function configureEventDatabase(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('secure_delete = ON');
  db.pragma('busy_timeout = 10000');
  db.exec(EVENT_STORE_SCHEMA);
}

/** One append as the writing thread receives it: event ids chosen, data and metadata as JSON. */
export interface SerializedAppend {
  stream: string;
  expectedVersion: ExpectedVersion;
  events: Array<{ id: string; type: string; data: string; metadata: string }>;
}

export type AppendFailure =
  | { kind: 'wrong_expected_version'; stream: string; expected: ExpectedVersion; actual: number }
  | { kind: 'stream_deleted'; stream: string }
  | { kind: 'error'; message: string };

export type AppendOutcome = { ok: true; result: AppendResult } | { ok: false; failure: AppendFailure };

/** The error an append's failure stands for, on the thread that answers the caller. */
export function appendError(failure: AppendFailure): Error {
  switch (failure.kind) {
    case 'wrong_expected_version':
      return new WrongExpectedVersionError(failure.stream, failure.expected, failure.actual);
    case 'stream_deleted':
      return new StreamDeletedError(failure.stream);
    case 'error':
      return new Error(failure.message);
  }
}

function failureOf(error: unknown): AppendFailure {
  if (error instanceof WrongExpectedVersionError)
    return {
      kind: 'wrong_expected_version',
      stream: error.stream,
      expected: error.expected,
      actual: error.actual,
    };
  if (error instanceof StreamDeletedError) return { kind: 'stream_deleted', stream: error.stream };
  return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
}

/**
 * Commits a group of appends in one transaction (one fsync). A failure of the transaction itself
 * (disk full, I/O error) throws, and nothing of the group was written.
 */
export function createAppendCommitter(
  db: Database.Database,
): (batch: readonly SerializedAppend[], recordedAt: string) => AppendOutcome[] {
  const selectStream = db.prepare<[string], { version: number; deleted: number }>(
    'SELECT version, deleted FROM streams WHERE stream = ?',
  );
  const insertEvent = db.prepare(
    'INSERT INTO events (stream, version, event_id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const upsertStreamVersion = db.prepare(
    'INSERT INTO streams (stream, version) VALUES (?, ?) ON CONFLICT (stream) DO UPDATE SET version = excluded.version',
  );
  const lastPosition = db.prepare<[string], { position: number }>(
    'SELECT position FROM events WHERE stream = ? ORDER BY version DESC LIMIT 1',
  );

  function appendOne(item: SerializedAppend, recordedAt: string): AppendResult {
    const row = selectStream.get(item.stream);
    if (row?.deleted) throw new StreamDeletedError(item.stream);
    const current = row?.version ?? 0;
    if (!expectedVersionHolds(item.expectedVersion, current))
      throw new WrongExpectedVersionError(item.stream, item.expectedVersion, current);
    if (item.events.length === 0) {
      return { nextExpectedVersion: current, position: lastPosition.get(item.stream)?.position ?? 0 };
    }
    let version = current;
    let position = 0;
    for (const event of item.events) {
      version += 1;
      const info = insertEvent.run(
        item.stream,
        version,
        event.id,
        event.type,
        event.data,
        event.metadata,
        recordedAt,
      );
      position = Number(info.lastInsertRowid);
    }
    upsertStreamVersion.run(item.stream, version);
    return { nextExpectedVersion: version, position };
  }

  // Each append runs as a nested transaction (a savepoint): its failure rolls back only itself.
  const appendInSavepoint = db.transaction(appendOne);
  const commitBatch = db.transaction((batch: readonly SerializedAppend[], recordedAt: string) =>
    batch.map((item): AppendOutcome => {
      try {
        return { ok: true, result: appendInSavepoint(item, recordedAt) };
      } catch (error) {
        return { ok: false, failure: failureOf(error) };
      }
    }),
  );
  return (batch, recordedAt) => commitBatch.immediate(batch, recordedAt);
}
