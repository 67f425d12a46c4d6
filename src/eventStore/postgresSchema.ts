import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';

/**
 * The PostgreSQL event store's tables and server-side functions, and how they are created.
 *
 * Why positions come from a counter row locked until commit, and not from a sequence: a sequence
 * hands out numbers when a transaction inserts, not when it commits, so a transaction that took
 * position 7 and commits after the one that took 8 becomes visible after a follower has read 8
 * and moved its cursor past 7 — the follower never sees 7. Marten works around this with a
 * high-water mark that waits for gaps to fill and, after a timeout, skips them (its 9.16.1 release
 * notes list four ways that mark could still jump over in-flight events); emmett orders by
 * (transaction id, sequence) and reads only below `pg_snapshot_xmin(pg_current_snapshot())`, which
 * is gap-free but makes the checkpoint a pair, and the port has one number. Here `append_batch`
 * takes its positions with `UPDATE head SET position = position + n` as late as it can, and the
 * row lock that takes serialises position assignment until the holder commits: PostgreSQL
 * ends a transaction by recording the commit, then leaving the proc array (becoming visible),
 * then releasing its locks (xact.c: "must be done _before_ releasing locks"). The next appender
 * therefore reads the counter only after the previous holder is visible to every new snapshot.
 * Consequences, for any reader's snapshot: every position it cannot see yet is greater than every
 * position it can see, so what is visible is always a prefix of the log (minus deleted streams).
 * A follower that reads `position > cursor` in one statement can never skip an event that commits
 * later (and scrub relies on the same prefix, see postgresScrub.ts). A rolled-back append rolls
 * the counter back too, so rollbacks leave no holes. Under a server default of REPEATABLE READ or
 * SERIALIZABLE the waiting UPDATE fails with a serialisation error instead, and the group runs again.
 * The cost is one appending transaction at a time across all processes, for the few milliseconds
 * between taking the counter and the commit's flush; group commit (many appends of a process in
 * one transaction, see postgresAppends.ts) keeps throughput up, and stream rows are locked before
 * the counter so waiting on a stream never holds it.
 */

/** Bumped when the DDL below changes: a store sees an older schema and (re)creates its objects. */
const SCHEMA_VERSION = 'archivist event store 1';

export interface PostgresNames {
  /** The schema, as given (unquoted). */
  schema: string;
  events: string;
  /** Where scrub builds the events table's replacement, and that table's type index. */
  eventsRebuild: string;
  eventsRebuildByType: string;
  streams: string;
  streamMetadata: string;
  head: string;
  appendBatch: string;
  deleteStream: string;
  /** NOTIFY channel of this schema's appends. */
  channel: string;
}

const quote = (identifier: string): string => `"${identifier.replaceAll('"', '""')}"`;

export function postgresNames(schema: string): PostgresNames {
  if (schema.length === 0 || Buffer.byteLength(schema) > 63)
    throw new RangeError(`PostgreSQL schema name must be 1 to 63 bytes: ${JSON.stringify(schema)}`);
  const s = quote(schema);
  return {
    schema,
    events: `${s}.events`,
    eventsRebuild: `${s}.events_scrub`,
    eventsRebuildByType: `${s}.events_scrub_by_type`,
    streams: `${s}.streams`,
    streamMetadata: `${s}.stream_metadata`,
    head: `${s}.head`,
    appendBatch: `${s}.append_batch`,
    deleteStream: `${s}.delete_stream`,
    // A channel name is an identifier (63 bytes at most): a digest keeps any schema's short.
    channel: `archivist_events_${createHash('sha256').update(schema).digest('hex').slice(0, 24)}`,
  };
}

const APPEND_ARGUMENTS =
  'text[], bigint[], integer[], integer[], integer[], text[], text[], text[], text[], text';

function ddl(n: PostgresNames): string {
  return `
CREATE SCHEMA IF NOT EXISTS ${quote(n.schema)};
CREATE TABLE IF NOT EXISTS ${n.events} (
  position bigint NOT NULL,
  -- Byte order ("C"): the same in every database, and what stream-prefix matching means.
  stream text COLLATE "C" NOT NULL,
  version bigint NOT NULL,
  event_id text NOT NULL,
  type text COLLATE "C" NOT NULL,
  -- text, not jsonb: jsonb reorders keys and drops duplicates; the port keeps data as appended.
  data text NOT NULL,
  metadata text NOT NULL,
  recorded_at timestamptz NOT NULL,
  -- Named, because scrub rebuilds the table under another name and renames them back.
  CONSTRAINT events_pkey PRIMARY KEY (position),
  CONSTRAINT events_stream_version UNIQUE (stream, version)
);
CREATE INDEX IF NOT EXISTS events_by_type ON ${n.events} (type, position);
-- ANALYZE would copy sample values of these columns into pg_statistic, out of reach of any scrub.
ALTER TABLE ${n.events} ALTER COLUMN data SET STATISTICS 0, ALTER COLUMN metadata SET STATISTICS 0;
CREATE TABLE IF NOT EXISTS ${n.streams} (
  stream text COLLATE "C" PRIMARY KEY,
  version bigint NOT NULL DEFAULT 0,
  deleted boolean NOT NULL DEFAULT false
);
-- Apart from the streams, which every append updates: scrub rewrites this table with VACUUM FULL,
-- which locks it, and appends never wait for that.
CREATE TABLE IF NOT EXISTS ${n.streamMetadata} (
  stream text COLLATE "C" PRIMARY KEY,
  metadata text NOT NULL
);
ALTER TABLE ${n.streamMetadata} ALTER COLUMN metadata SET STATISTICS 0;
CREATE TABLE IF NOT EXISTS ${n.head} (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  position bigint NOT NULL,
  -- Streams deleted so far: scrub discards a copy of the log that a deletion overtook.
  deletions bigint NOT NULL DEFAULT 0
);
INSERT INTO ${n.head} (only_row, position) VALUES (true, 0) ON CONFLICT DO NOTHING;

-- One group of appends, each checked against its stream alone: a failed check writes nothing for
-- that append and does not fail the others. Expected versions: -1 any, -2 no_stream,
-- -3 stream_exists, -4 never holds, n >= 0 exactly n. Events come flattened, each with the
-- 1-based index of its append and its 1-based place in it.
CREATE OR REPLACE FUNCTION ${n.appendBatch}(
  p_streams text[], p_expected bigint[], p_counts integer[], p_owner integer[], p_place integer[],
  p_ids text[], p_types text[], p_data text[], p_metadata text[], p_channel text
) RETURNS TABLE (outcome text, actual bigint, next_version bigint, last_position bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_n integer := coalesce(cardinality(p_streams), 0);
  v_outcome text[] := array_fill('ok'::text, ARRAY[v_n]);
  v_actual bigint[] := array_fill(0::bigint, ARRAY[v_n]);
  v_ok boolean[] := array_fill(false, ARRAY[v_n]);
  -- Events of successful appends up to and including each append: its last event's offset.
  v_end bigint[] := array_fill(0::bigint, ARRAY[v_n]);
  v_created text[];
  v_version bigint;
  v_deleted boolean;
  v_expected bigint;
  v_total bigint := 0;
  v_first bigint;
BEGIN
  -- Stream rows are created and locked in one global order (byte order of the name), so two
  -- groups naming the same streams in different orders wait for each other instead of deadlocking.
  WITH created AS (
    INSERT INTO ${n.streams} (stream)
    SELECT DISTINCT s COLLATE "C" FROM unnest(p_streams) AS s ORDER BY 1
    ON CONFLICT (stream) DO NOTHING
    RETURNING stream
  )
  SELECT array_agg(stream) INTO v_created FROM created;
  PERFORM 1 FROM ${n.streams} WHERE stream = ANY (p_streams) ORDER BY stream COLLATE "C" FOR UPDATE;

  FOR i IN 1 .. v_n LOOP
    SELECT st.version, st.deleted INTO v_version, v_deleted FROM ${n.streams} st WHERE st.stream = p_streams[i];
    v_expected := p_expected[i];
    v_actual[i] := v_version;
    IF v_deleted THEN
      v_outcome[i] := 'deleted';
    ELSIF NOT (v_expected = -1 OR (v_expected = -2 AND v_version = 0) OR (v_expected = -3 AND v_version > 0)
               OR v_expected = v_version) THEN
      v_outcome[i] := 'conflict';
    ELSE
      v_ok[i] := true;
      IF p_counts[i] > 0 THEN
        UPDATE ${n.streams} SET version = v_version + p_counts[i] WHERE stream = p_streams[i];
        v_total := v_total + p_counts[i];
      END IF;
    END IF;
    v_end[i] := v_total;
  END LOOP;

  IF v_total > 0 THEN
    -- Positions last, held until commit: see postgresSchema.ts for why this makes the order gap-free.
    UPDATE ${n.head} SET position = position + v_total RETURNING position - v_total INTO v_first;
    INSERT INTO ${n.events} (position, stream, version, event_id, type, data, metadata, recorded_at)
    SELECT v_first + row_number() OVER (ORDER BY e.ord), p_streams[e.owner], v_actual[e.owner] + e.place,
           e.id, e.type, e.data, e.meta, now()
    FROM unnest(p_owner, p_place, p_ids, p_types, p_data, p_metadata)
         WITH ORDINALITY AS e(owner, place, id, type, data, meta, ord)
    WHERE v_ok[e.owner];
    PERFORM pg_notify(p_channel, (v_first + v_total)::text);
  END IF;

  -- A row this group created for an append that wrote nothing stands for a stream that does not exist.
  IF v_created IS NOT NULL THEN
    DELETE FROM ${n.streams} WHERE stream = ANY (v_created) AND version = 0;
  END IF;

  RETURN QUERY
    SELECT x.o, x.act,
           CASE WHEN x.o = 'ok' THEN x.act + x.cnt END,
           CASE WHEN x.o <> 'ok' THEN NULL
                WHEN x.cnt > 0 THEN v_first + x.e
                ELSE coalesce((SELECT ev.position FROM ${n.events} ev WHERE ev.stream = x.stream
                               ORDER BY ev.version DESC LIMIT 1), 0) END
    FROM unnest(v_outcome, v_actual, p_counts, v_end, p_streams) WITH ORDINALITY AS x(o, act, cnt, e, stream, idx)
    ORDER BY x.idx;
END
$fn$;
COMMENT ON FUNCTION ${n.appendBatch}(${APPEND_ARGUMENTS}) IS '${SCHEMA_VERSION}';

-- Marks the stream deleted first: that waits for an append holding the stream's row, so the
-- DELETE that follows (a new statement, a new snapshot) also removes what that append committed.
-- Counting the deletion on the head row waits for the appender holding positions, for a moment.
CREATE OR REPLACE FUNCTION ${n.deleteStream}(p_stream text) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO ${n.streams} (stream, deleted) VALUES (p_stream, true)
  ON CONFLICT (stream) DO UPDATE SET deleted = true;
  DELETE FROM ${n.streamMetadata} WHERE stream = p_stream;
  DELETE FROM ${n.events} WHERE stream = p_stream;
  UPDATE ${n.head} SET deletions = deletions + 1;
END
$fn$;
`;
}

/**
 * Creates the schema's objects unless they are there at the version this code expects. Several
 * processes may start at once: an advisory lock makes one of them create and the others wait,
 * instead of failing on each other's half-made objects.
 */
export async function ensureSchema(pool: Pool, names: PostgresNames): Promise<void> {
  const signature = `${names.appendBatch}(${APPEND_ARGUMENTS})`;
  const isCurrent = async (on: Pool | PoolClient): Promise<boolean> => {
    const { rows } = await on.query<{ comment: string | null }>(
      `SELECT obj_description(to_regprocedure($1), 'pg_proc') AS comment`,
      [signature],
    );
    return rows[0]?.comment === SCHEMA_VERSION;
  };
  if (await isCurrent(pool)) return;
  const client = await pool.connect();
  const key = [`archivist event store schema`, names.schema];
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1), hashtext($2))', key);
    // Checked again in a transaction begun after the wait, not in one that waited for the lock: a
    // session's catalog cache takes in other sessions' changes when a transaction starts (or a
    // table is locked), not after an advisory lock, so it would miss what the previous holder
    // created and run the DDL again — whose CREATE INDEX then deadlocks with appends under way.
    if (!(await isCurrent(client))) await client.query(ddl(names)); // one statement list, one transaction
    await client.query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', key);
    client.release();
  } catch (error) {
    // Destroying the connection ends its session, which releases the lock.
    client.release(error instanceof Error ? error : true);
    throw error;
  }
}
