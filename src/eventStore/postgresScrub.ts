import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { ClientConfig } from 'pg';
import type { Logger } from '../log.js';
import { EventStoreUnavailableError } from './eventStore.js';
import { isInsufficientPrivilege, unavailable } from './postgresErrors.js';
import type { PostgresNames } from './postgresSchema.js';

/**
 * Removing deleted streams' bytes from the server's files. A DELETE only marks rows dead: their
 * bytes stay in the table's pages, its TOAST and its indexes until the space happens to be reused,
 * and VACUUM compacts pages without clearing what it frees. Only a table written into new files
 * loses them, once the old files are truncated and unlinked. The WAL also holds the rows as
 * inserted (and full-page images of their pages): switching to a new segment and checkpointing
 * lets the server delete every older segment — delete, not recycle, only with `wal_recycle=off`,
 * and only if nothing keeps old WAL (`wal_keep_size`, replication slots, archiving).
 *
 * VACUUM FULL would rewrite the events table under an exclusive lock held for the whole rewrite
 * (0.8 s for 200,000 events here, and growing with the log), stalling every append. Instead the
 * live events are copied into a new table while appends go on; the log is append-only and every
 * snapshot holds a prefix of the positions (postgresSchema.ts), so "the events after the head my
 * copy saw" is exactly what is missing from it. Only the last few of those are copied under the
 * exclusive lock, the old table is dropped and the copy renamed in its place: appends wait for
 * milliseconds. A stream deleted while the copy was made would come back to life in it, so a
 * deletion counted meanwhile makes the copy be discarded and made again. Stream metadata lives in
 * a table that appends never touch, and is rewritten with VACUUM FULL. The streams table is not
 * rewritten: what its dead rows hold of a deleted stream (its name) its tombstone holds anyway.
 */
export interface ScrubOptions {
  client: ClientConfig;
  names: PostgresNames;
  target: string;
  log: Logger;
  /** Longest the whole scrub may run (ms). */
  timeoutMs: number;
  /** Longest one try waits for a table's exclusive lock (ms): appends queue behind the request meanwhile. */
  lockTimeoutMs: number;
}

const LOCK_TRIES = 5;
const COPY_ROUNDS = 3;
/** Catching up without the lock stops once fewer events than this arrived meanwhile. */
const SMALL_TAIL = 1_000;

export async function scrubPostgres(options: ScrubOptions): Promise<void> {
  const { names, log, target } = options;
  const client = new pg.Client({
    ...options.client,
    statement_timeout: options.timeoutMs,
    query_timeout: options.timeoutMs + 5_000,
  });
  client.on('error', () => {}); // a dropped connection fails the statement under way; that is enough
  const fail = (what: string) => (error: unknown) => {
    throw unavailable(target, `scrub (${what})`, error);
  };
  await client.connect().catch(fail('connect'));
  try {
    await warnAboutKeptWal(client, log);
    // One scrub of a schema at a time, across processes: each would build a copy of the log.
    await client
      .query('SELECT pg_advisory_lock(hashtext($1), hashtext($2))', [
        'archivist event store scrub',
        names.schema,
      ])
      .catch(fail('waiting for another scrub'));
    const { rows: tables } = await client
      .query<{ name: string; owned: boolean }>(
        `SELECT c.oid::regclass::text AS name, pg_has_role(c.relowner, 'USAGE') AS owned
         FROM pg_class c WHERE c.oid IN (to_regclass($1), to_regclass($2))`,
        [names.events, names.streamMetadata],
      )
      .catch(fail('inspect tables'));
    for (const table of tables) {
      if (!table.owned) {
        log.warn(
          { table: table.name },
          'event store scrub: not the owner of the table, cannot rewrite it: deleted content stays in its files',
        );
      } else if (table.name.endsWith('.events')) {
        await rebuildEvents(client, options).catch(fail('rebuilding the events table'));
      } else {
        await vacuumFull(client, table.name, options);
      }
    }
    for (const [statement, privilege] of [
      ['SELECT pg_switch_wal()', 'EXECUTE on pg_switch_wal()'],
      ['CHECKPOINT', 'the pg_checkpoint role'],
    ] as const) {
      try {
        await client.query(statement);
      } catch (error) {
        if (!isInsufficientPrivilege(error)) fail(statement)(error);
        log.warn(
          { statement, err: error },
          `event store scrub: ${statement} needs superuser or ${privilege}: deleted content stays in old WAL segments until the server removes them`,
        );
      }
    }
  } finally {
    await client.end().catch(() => {}); // also releases the advisory lock
  }
}

interface Copied {
  head: string;
  deletions: string;
}

/** Copies the live events with a position after `after` into the rebuild, with the head and deletion count they were copied at. */
async function copyAfter(client: pg.Client, names: PostgresNames, after: string): Promise<Copied> {
  // One statement, one snapshot: the head and the deletions counted belong to the rows copied.
  const { rows } = await client.query<Copied>(
    `WITH copied AS (
       INSERT INTO ${names.eventsRebuild} SELECT * FROM ${names.events} WHERE position > $1 RETURNING 1
     )
     SELECT h.position::text AS head, h.deletions::text AS deletions, (SELECT count(*) FROM copied) AS n
     FROM ${names.head} h`,
    [after],
  );
  return rows[0]!;
}

async function rebuildEvents(client: pg.Client, options: ScrubOptions): Promise<void> {
  const { names } = options;
  for (let round = 1; round <= COPY_ROUNDS; round += 1) {
    await client.query(`DROP TABLE IF EXISTS ${names.eventsRebuild}`); // a crashed scrub's leftover
    await client.query(
      `CREATE TABLE ${names.eventsRebuild} (LIKE ${names.events} INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMPRESSION)`,
    );
    // As on the events table (see the schema): no sample of the content in pg_statistic.
    await client.query(
      `ALTER TABLE ${names.eventsRebuild} ALTER COLUMN data SET STATISTICS 0, ALTER COLUMN metadata SET STATISTICS 0`,
    );
    const start = await copyAfter(client, names, '0');
    let head = start.head;
    let overtaken = false;
    for (let i = 0; i < 5 && !overtaken; i += 1) {
      const next = await copyAfter(client, names, head);
      overtaken = next.deletions !== start.deletions;
      const arrived = Number(next.head) - Number(head);
      head = next.head;
      if (arrived < SMALL_TAIL) break;
    }
    if (!overtaken) {
      await client.query(
        `ALTER TABLE ${names.eventsRebuild} ADD CONSTRAINT events_scrub_pkey PRIMARY KEY (position),
           ADD CONSTRAINT events_scrub_stream_version UNIQUE (stream, version)`,
      );
      await client.query(`CREATE INDEX events_scrub_by_type ON ${names.eventsRebuild} (type, position)`);
      await client.query(`ANALYZE ${names.eventsRebuild}`);
      await carryOverOwnerAndGrants(client, names);
      const swapped = await swapIn(client, options, head, start.deletions);
      if (swapped) return;
    }
    options.log.info(
      { round },
      'event store scrub: a stream was deleted while the log was copied; copying again',
    );
  }
  await client.query(`DROP TABLE IF EXISTS ${names.eventsRebuild}`);
  throw new EventStoreUnavailableError(
    `scrub: streams kept being deleted while the log was copied (${COPY_ROUNDS} tries): deleted content may remain`,
  );
}

/**
 * Under the exclusive lock: the last events, then the old table out and the copy in. True when
 * swapped; false when a deletion overtook the copy (then nothing changed).
 */
async function swapIn(
  client: pg.Client,
  options: ScrubOptions,
  head: string,
  deletions: string,
): Promise<boolean> {
  const { names } = options;
  for (let attempt = 1; ; attempt += 1) {
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    try {
      await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(options.lockTimeoutMs))}`);
      await client.query(`LOCK TABLE ${names.events} IN ACCESS EXCLUSIVE MODE`);
      // Every append that inserted has committed (the lock waited for it); the others wait for us.
      const last = await copyAfter(client, names, head);
      if (last.deletions !== deletions) {
        await client.query('ROLLBACK');
        return false;
      }
      await client.query(`DROP TABLE ${names.events}`);
      await client.query(`ALTER TABLE ${names.eventsRebuild} RENAME TO events`);
      await client.query(`ALTER TABLE ${names.events} RENAME CONSTRAINT events_scrub_pkey TO events_pkey`);
      await client.query(
        `ALTER TABLE ${names.events} RENAME CONSTRAINT events_scrub_stream_version TO events_stream_version`,
      );
      await client.query(`ALTER INDEX ${names.eventsRebuildByType} RENAME TO events_by_type`);
      await client.query('COMMIT');
      return true;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      if ((error as { code?: string }).code !== '55P03') throw error;
      if (attempt >= LOCK_TRIES)
        throw new EventStoreUnavailableError(
          `scrub could not lock ${names.events} within ${options.lockTimeoutMs} ms in ${LOCK_TRIES} tries (long transactions hold it): deleted content may remain`,
          { cause: error },
        );
      // Long readers hold the table: catch up meanwhile, so the locked step stays short.
      const caughtUp = await copyAfter(client, names, head);
      if (caughtUp.deletions !== deletions) return false;
      head = caughtUp.head;
      await sleep(100 * 2 ** attempt);
    }
  }
}

/** The replacement gets the old table's owner and privileges, so that the swap changes nothing else. */
async function carryOverOwnerAndGrants(client: pg.Client, names: PostgresNames): Promise<void> {
  const { rows } = await client.query<{ statement: string }>(
    `SELECT format('ALTER TABLE %s OWNER TO %s', $2::text, c.relowner::regrole) AS statement
       FROM pg_class c WHERE c.oid = to_regclass($1)
     UNION ALL
     SELECT format('GRANT %s ON %s TO %s%s', a.privilege_type, $2::text,
                   CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END,
                   CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END)
       FROM pg_class c, aclexplode(c.relacl) a
      WHERE c.oid = to_regclass($1) AND a.grantee <> c.relowner`,
    [names.events, names.eventsRebuild],
  );
  for (const { statement } of rows) await client.query(statement);
}

async function vacuumFull(client: pg.Client, table: string, options: ScrubOptions): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await client.query(`SET lock_timeout = ${Math.max(1, Math.round(options.lockTimeoutMs))}`);
      await client.query(`VACUUM (FULL) ${table}`);
      await client.query('RESET lock_timeout');
      return;
    } catch (error) {
      await client.query('RESET lock_timeout').catch(() => {});
      if ((error as { code?: string }).code !== '55P03')
        throw unavailable(options.target, `scrub (VACUUM FULL ${table})`, error);
      if (attempt >= LOCK_TRIES)
        throw new EventStoreUnavailableError(
          `PostgreSQL at ${options.target}: scrub could not lock ${table} within ${options.lockTimeoutMs} ms in ${LOCK_TRIES} tries (long transactions hold it): deleted content may remain`,
          { cause: error },
        );
      await sleep(100 * 2 ** attempt);
    }
  }
}

/** Settings under which old WAL segments (holding deleted events) outlive the checkpoint. */
async function warnAboutKeptWal(client: pg.Client, log: Logger): Promise<void> {
  const { rows } = await client.query<{ recycle: string; keep: string; archive: string; slots: number }>(
    `SELECT current_setting('wal_recycle') AS recycle, current_setting('wal_keep_size') AS keep,
            current_setting('archive_mode') AS archive,
            (SELECT count(*)::int FROM pg_replication_slots) AS slots`,
  );
  const settings = rows[0];
  if (!settings) return;
  const problems = [
    settings.recycle === 'on'
      ? 'wal_recycle=on renames old segments for reuse with their bytes in them'
      : null,
    settings.keep !== '0' ? `wal_keep_size=${settings.keep} keeps old segments` : null,
    settings.archive !== 'off' ? 'archive_mode copies segments to the archive' : null,
    settings.slots > 0 ? `${settings.slots} replication slot(s) keep old segments` : null,
  ].filter((problem): problem is string => problem !== null);
  if (problems.length > 0)
    log.warn(
      { problems },
      'event store scrub: deleted events may remain in WAL files: ' + problems.join('; '),
    );
}
