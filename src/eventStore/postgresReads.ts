import { recordedEventOf, type EventRow as StoredRow } from './eventRow.js';
import type { AllBatch, EventFilter, ReadStreamOptions, RecordedEvent } from './eventStore.js';
import type { PostgresNames } from './postgresSchema.js';

/**
 * The PostgreSQL event store's reads. Each is one statement, so it sees one snapshot — which, with
 * positions handed out in commit order (postgresSchema.ts), holds every event up to the newest it
 * shows: a read after a cursor never skips an event that commits later. Filters run on the server:
 * event types through the (type, position) index, one seek per type; stream prefixes on the rows
 * scanned. A filtered batch's checkpoint is the furthest position the read proved has nothing more
 * for the filter, taken from the same snapshot as the events.
 */

/** Runs one statement and returns its rows; errors come back as the port's. */
export type Query = <Row>(what: string, text: string, values: readonly unknown[]) => Promise<Row[]>;

type EventRow = StoredRow<string>;

/** Rows of a filtered read: one per event, or one with null event columns when nothing matched. */
type FilteredRow = { [K in keyof EventRow]: EventRow[K] | null } & {
  head: string | null;
  matched: number;
  last: string | null;
};

const COLUMNS = `e.position, e.stream, e.version, e.event_id, e.type, e.data, e.metadata,
  to_char(e.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at`;

/** Rows of a page of stream-prefix-filtered reads scan at least this many events per statement. */
const PREFIX_SCAN = 5_000;

export interface PostgresReads {
  readStream(stream: string, options: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** The events after `position` that match `filter` (at most `maxCount`) and the checkpoint reached. */
  readFiltered(position: number, maxCount: number, filter: EventFilter | undefined): Promise<AllBatch>;
  headPosition(filter: EventFilter | undefined): Promise<number>;
}

const hasEvent = (row: FilteredRow): row is FilteredRow & EventRow => row.position !== null;

export function createPostgresReads(names: PostgresNames, query: Query): PostgresReads {
  const { events } = names;
  // $P: the stream prefixes (null: any stream).
  const prefixMatches = (column: string, parameter: string): string =>
    `(${parameter}::text[] IS NULL OR EXISTS (SELECT 1 FROM unnest(${parameter}::text[]) AS pr(p) WHERE starts_with(${column}, pr.p)))`;

  const byTypes = `
    WITH cand AS (
      SELECT p.position FROM unnest($1::text[]) AS t(type)
      CROSS JOIN LATERAL (
        SELECT ev.position FROM ${events} ev WHERE ev.type = t.type AND ev.position > $2
        ORDER BY ev.position LIMIT $3
      ) p
      ORDER BY p.position LIMIT $3
    ), info AS (
      SELECT (SELECT coalesce(max(position), 0) FROM ${events}) AS head,
             count(*)::int AS matched, max(position) AS last
      FROM cand
    )
    SELECT info.head, info.matched, info.last, ${COLUMNS}
    FROM info LEFT JOIN (cand JOIN ${events} e USING (position)) ON ${prefixMatches('e.stream', '$4')}
    ORDER BY e.position`;

  const byPrefixes = `
    WITH page AS (
      SELECT ev.position, ev.stream FROM ${events} ev WHERE ev.position > $1 ORDER BY ev.position LIMIT $2
    ), hits AS (
      SELECT page.position FROM page WHERE ${prefixMatches('page.stream', '$4')} ORDER BY page.position LIMIT $3
    ), info AS (
      SELECT (SELECT max(position) FROM page) AS head, (SELECT count(*)::int FROM hits) AS matched,
             (SELECT max(position) FROM hits) AS last
    )
    SELECT info.head, info.matched, info.last, ${COLUMNS}
    FROM info LEFT JOIN (hits JOIN ${events} e USING (position)) ON true
    ORDER BY e.position`;

  async function readFiltered(
    position: number,
    maxCount: number,
    filter: EventFilter | undefined,
  ): Promise<AllBatch> {
    const types = filter?.eventTypes ? [...new Set(filter.eventTypes)] : null;
    const prefixes = filter?.streamPrefixes ? [...filter.streamPrefixes] : null;
    if (!types && !prefixes) {
      const rows = await query<EventRow>(
        'read all',
        `SELECT ${COLUMNS} FROM ${events} e WHERE e.position > $1 ORDER BY e.position LIMIT $2`,
        [position, maxCount],
      );
      return {
        events: rows.map(recordedEventOf),
        checkpoint: rows.length > 0 ? Number(rows.at(-1)!.position) : position,
      };
    }
    if (types && types.length === 0) {
      const [row] = await query<{ head: string }>(
        'read all',
        `SELECT coalesce(max(position), 0) AS head FROM ${events}`,
        [],
      );
      return { events: [], checkpoint: Math.max(position, Number(row?.head ?? 0)) };
    }
    const rows = types
      ? await query<FilteredRow>('read all by event type', byTypes, [types, position, maxCount, prefixes])
      : await query<FilteredRow>('read all by stream prefix', byPrefixes, [
          position,
          Math.max(maxCount, PREFIX_SCAN),
          maxCount,
          prefixes,
        ]);
    const info = rows[0];
    const matched = info?.matched ?? 0;
    // A full page stops at its last candidate; a short one proves nothing else matches up to the head.
    const reached = matched >= maxCount ? Number(info?.last) : Number(info?.head ?? position);
    return { events: rows.filter(hasEvent).map(recordedEventOf), checkpoint: Math.max(position, reached) };
  }

  return {
    async readStream(stream, options) {
      const limit = options.maxCount ?? null;
      const rows =
        options.direction === 'backwards'
          ? await query<EventRow>(
              'read stream',
              `SELECT ${COLUMNS} FROM ${events} e WHERE e.stream = $1 AND ($2::bigint IS NULL OR e.version <= $2)
               ORDER BY e.version DESC LIMIT $3`,
              [stream, options.fromVersion ?? null, limit],
            )
          : await query<EventRow>(
              'read stream',
              `SELECT ${COLUMNS} FROM ${events} e WHERE e.stream = $1 AND e.version >= $2 ORDER BY e.version LIMIT $3`,
              [stream, options.fromVersion ?? 1, limit],
            );
      return rows.map(recordedEventOf);
    },

    readFiltered,

    async headPosition(filter) {
      const types = filter?.eventTypes ? [...new Set(filter.eventTypes)] : null;
      const prefixes = filter?.streamPrefixes ? [...filter.streamPrefixes] : null;
      if (types?.length === 0) return 0;
      let rows: Array<{ head: string | null }>;
      if (!types && !prefixes) {
        rows = await query('head position', `SELECT max(position) AS head FROM ${events}`, []);
      } else if (!prefixes) {
        rows = await query(
          'head position',
          `SELECT max(m.head) AS head FROM unnest($1::text[]) AS t(type)
           CROSS JOIN LATERAL (SELECT max(ev.position) AS head FROM ${events} ev WHERE ev.type = t.type) m`,
          [types],
        );
      } else {
        rows = await query(
          'head position',
          `SELECT ev.position AS head FROM ${events} ev
           WHERE ($1::text[] IS NULL OR ev.type = ANY ($1::text[])) AND ${prefixMatches('ev.stream', '$2')}
           ORDER BY ev.position DESC LIMIT 1`,
          [types, prefixes],
        );
      }
      return Number(rows[0]?.head ?? 0);
    },
  };
}
