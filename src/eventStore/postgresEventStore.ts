import { withEncodedStreamNames } from './streamNameEncoding.js';
import pg from 'pg';
import type { ClientConfig, PoolConfig } from 'pg';
import { silentLogger, type Logger } from '../log.js';
import type { EventStore, RecordedEvent, StreamInfo } from './eventStore.js';
import { EventStoreUnavailableError } from './eventStore.js';
import { appendBatchStatement, createAppendQueue, type AppendRow } from './postgresAppends.js';
import { describeTarget, isConnectionLost, isTransient, unavailable } from './postgresErrors.js';
import { createNotificationListener } from './postgresNotifications.js';
import { createPostgresReads, type Query } from './postgresReads.js';
import { ensureSchema, postgresNames } from './postgresSchema.js';
import { scrubPostgres } from './postgresScrub.js';
import {
  createAppendSignal,
  createSubscriptionRegistry,
  pullAllSubscription,
  pullStreamSubscription,
  type ReadRetry,
} from './subscription.js';
import { onceSucceeded } from '../onceSucceeded.js';

export interface PostgresEventStoreOptions {
  /** `postgres://user:password@host:5432/database` (any form `pg` accepts). */
  connectionString: string;
  /** Schema of the store's tables, created when missing (default `archivist`). */
  schema?: string;
  log?: Logger;
  /** Most connections of this store's pool (default 10). */
  poolSize?: number;
  /** Longest wait for a connection (ms, default 5 000). */
  connectTimeoutMs?: number;
  /** Longest any statement runs, waiting for locks included (ms, default 10 000). */
  statementTimeoutMs?: number;
  /** Most appends committed together in one transaction (default 500). */
  maxBatch?: number;
  /** Subscriptions poll at least this often right after activity (ms, default 100)… */
  pollMinMs?: number;
  /** …and at least this often when the store is quiet (ms, default 2 000): a lost NOTIFY delays them no more. */
  pollMaxMs?: number;
  /** Longest a `scrub()` may run (ms, default 600 000). */
  scrubTimeoutMs?: number;
  /** Longest `scrub()` waits for a table's lock per try (ms, default 2 000). */
  scrubLockTimeoutMs?: number;
}

/**
 * The event store on PostgreSQL (14 or later; tested on 15), through `pg`: one log that any
 * number of processes on any number of hosts append to and follow. Positions are handed out in
 * commit order (postgresSchema.ts explains how and why), so a follower reading after its cursor
 * never skips an event that commits late. Appends of this process are grouped into one
 * transaction each (postgresAppends.ts). Subscriptions read after their cursor, filtered on the
 * server, wake on LISTEN/NOTIFY and also poll (backing off while quiet), so a lost notification
 * only delays them; when the server goes away they retry and resume from their cursor.
 *
 * The tables are created on first use (in `schema`), which needs CREATE on the database (or an
 * existing schema). Calls are bounded by `connectTimeoutMs` and `statementTimeoutMs`; a server
 * that is down or does not answer makes them fail with `EventStoreUnavailableError`, and the
 * pool reconnects when it is back.
 *
 * `scrub()` (postgresScrub.ts) rebuilds the events table beside the old one and swaps it in
 * (appends wait only for the swap), rewrites the stream metadata table with VACUUM FULL, switches
 * WAL segment and checkpoints. For nothing of a deleted stream to remain in the server's files:
 * - server settings: `wal_recycle=off` (else old segments are renamed for reuse, bytes and all),
 *   `wal_keep_size=0`, no replication slots and no `archive_mode` (a replica or an archive holds
 *   its own copies, to purge there); statement logging with parameters (`log_statement=all`,
 *   `log_min_duration_statement`) would write event content into the server log;
 * - privileges: ownership of the tables (the user that created them) and CREATE on the schema;
 *   superuser, or the `pg_checkpoint` role and EXECUTE on `pg_switch_wal()`.
 * A missing privilege or setting is logged as a warning; the scrub does what it can and succeeds.
 * The scrub needs free disk space for a second copy of the live events while it runs.
 */
export function createPostgresEventStore(options: PostgresEventStoreOptions): EventStore {
  const log = options.log ?? silentLogger;
  const target = describeTarget(options.connectionString);
  const names = postgresNames(options.schema ?? 'archivist');
  const statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
  const connection: ClientConfig = {
    connectionString: options.connectionString,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: 'archivist-event-store',
  };
  const poolConfig: PoolConfig = {
    ...connection,
    max: options.poolSize ?? 10,
    statement_timeout: statementTimeoutMs,
    // The client gives up a little after the server would have: a server that stopped answering.
    query_timeout: statementTimeoutMs + 2_000,
    idle_in_transaction_session_timeout: statementTimeoutMs,
  };
  const pool = new pg.Pool(poolConfig);
  // An idle client whose server went away emits 'error'; the pool drops it. Unhandled, it would crash.
  pool.on('error', (error) => log.debug({ err: error }, 'event store: an idle PostgreSQL connection failed'));

  const appended = createAppendSignal({ minMs: options.pollMinMs ?? 100, maxMs: options.pollMaxMs ?? 2_000 });
  const listener = createNotificationListener({
    client: connection,
    channel: names.channel,
    wake: () => appended.notify(),
    log,
  });
  const subscriptions = createSubscriptionRegistry();
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new EventStoreUnavailableError('event store is closed');
  };

  const ensureReady = onceSucceeded(() =>
    ensureSchema(pool, names).catch((error: unknown) => {
      throw unavailable(target, 'creating the event store schema', error);
    }),
  );

  /** A read: retried once on a fresh connection when a pooled one turns out dead (a restarted server). */
  const query: Query = async <Row>(what: string, text: string, values: readonly unknown[]) => {
    assertOpen();
    await ensureReady();
    for (let attempt = 1; ; attempt += 1) {
      try {
        return (await pool.query(text, [...values])).rows as Row[];
      } catch (error) {
        if (attempt === 1 && isConnectionLost(error) && !closed) continue;
        throw unavailable(target, what, error);
      }
    }
  };

  /** A write that is all or nothing: retried when rolled back by a deadlock or serialisation failure. */
  async function write<Row>(what: string, text: string, values: readonly unknown[]): Promise<Row[]> {
    await ensureReady();
    for (let attempt = 1; ; attempt += 1) {
      try {
        return (await pool.query(text, [...values])).rows as Row[];
      } catch (error) {
        if (attempt < 5 && isTransient(error)) continue;
        throw unavailable(target, what, error);
      }
    }
  }

  const reads = createPostgresReads(names, query);
  const appends = createAppendQueue({
    maxBatch: options.maxBatch ?? 500,
    maxEvents: 10_000,
    commit: (batch) => {
      const statement = appendBatchStatement(names, batch);
      return write<AppendRow>('append', statement.text, statement.values);
    },
    appended: () => appended.notify(),
  });

  // Every subscription retries on its own; one warning a minute says so for all of them.
  let warnedAt = -Infinity;
  const retryReads: ReadRetry = (error, attempt) => {
    if (!(error instanceof EventStoreUnavailableError) || closed) return null;
    if (attempt === 1 && Date.now() - warnedAt > 60_000) {
      warnedAt = Date.now();
      log.warn({ err: error }, 'event store: subscriptions cannot read, retrying until the server is back');
    }
    return Math.min(5_000, 50 * 2 ** Math.min(attempt, 10));
  };

  return withEncodedStreamNames({
    async append(stream, events, appendOptions = {}) {
      assertOpen();
      return appends.append(stream, events, appendOptions);
    },

    async readStream(stream, readOptions = {}) {
      return reads.readStream(stream, readOptions);
    },

    async readAll(readOptions = {}) {
      const limit = readOptions.maxCount ?? Number.MAX_SAFE_INTEGER;
      const result: RecordedEvent[] = [];
      let cursor = readOptions.fromPosition ?? 0;
      for (;;) {
        const page = Math.min(5_000, limit - result.length);
        const batch = await reads.readFiltered(cursor, page, readOptions.filter);
        result.push(...batch.events);
        if (result.length >= limit || batch.checkpoint <= cursor) return result.slice(0, limit);
        cursor = batch.checkpoint;
      }
    },

    subscribeToAll(subscribeOptions = {}) {
      listener.start();
      return subscriptions.track(
        pullAllSubscription(
          appended,
          (position, max) => reads.readFiltered(position, max, subscribeOptions.filter),
          subscribeOptions,
          retryReads,
        ),
      );
    },

    subscribeToStream(stream, subscribeOptions = {}) {
      listener.start();
      return subscriptions.track(
        pullStreamSubscription(
          appended,
          stream,
          (fromVersion, max) => reads.readStream(stream, { fromVersion, maxCount: max }),
          subscribeOptions,
          retryReads,
        ),
      );
    },

    async streamInfo(stream): Promise<StreamInfo> {
      const [row] = await query<{ version: string | null; deleted: boolean | null; metadata: string | null }>(
        'stream info',
        `SELECT s.version, s.deleted, m.metadata
         FROM (SELECT $1::text COLLATE "C" AS stream) q
         LEFT JOIN ${names.streams} s USING (stream) LEFT JOIN ${names.streamMetadata} m USING (stream)`,
        [stream],
      );
      return {
        version: row?.deleted === false ? Number(row.version) : 0,
        deleted: row?.deleted ?? false,
        metadata: row?.metadata ? (JSON.parse(row.metadata) as Record<string, unknown>) : {},
      };
    },

    async setStreamMetadata(stream, metadata) {
      assertOpen();
      await write(
        'set stream metadata',
        `INSERT INTO ${names.streamMetadata} (stream, metadata) VALUES ($1, $2)
         ON CONFLICT (stream) DO UPDATE SET metadata = excluded.metadata`,
        [stream, JSON.stringify(metadata)],
      );
    },

    async deleteStream(stream) {
      assertOpen();
      await write('delete stream', `SELECT ${names.deleteStream}($1)`, [stream]);
    },

    async scrub() {
      assertOpen();
      await ensureReady();
      await scrubPostgres({
        client: connection,
        names,
        target,
        log,
        timeoutMs: options.scrubTimeoutMs ?? 600_000,
        lockTimeoutMs: options.scrubLockTimeoutMs ?? 2_000,
      });
    },

    async headPosition(filter) {
      return reads.headPosition(filter);
    },

    async health() {
      if (closed) return { healthy: false, reason: 'event store is closed' };
      try {
        await query('health check', 'SELECT 1', []);
        return { healthy: true, reason: null };
      } catch (error) {
        return { healthy: false, reason: (error as Error).message };
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      // What was appended before the close is committed first.
      await appends.drain();
      subscriptions.closeAll();
      await listener.close();
      await pool.end();
    },
  });
}
