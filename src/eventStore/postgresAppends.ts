import { randomUUID } from 'node:crypto';
import type { AppendOptions, AppendResult, EventToAppend, ExpectedVersion } from './eventStore.js';
import { StreamDeletedError, WrongExpectedVersionError } from './eventStore.js';
import type { PostgresNames } from './postgresSchema.js';

/**
 * Group commit for the PostgreSQL event store. Appending transactions take turns at the position
 * counter (see postgresSchema.ts), so each costs a round trip and a WAL flush while the others
 * wait: the appends a process issues meanwhile are sent together as one `append_batch` call —
 * one transaction, one flush — and each is checked against its own stream, so a conflict fails
 * that append alone. One group is in flight at a time; what arrives meanwhile forms the next.
 */

/** One append as `append_batch` takes it: the stream, the expected version coded as a number, the events. */
export interface SerializedAppend {
  stream: string;
  expected: number;
  events: ReadonlyArray<{ id: string; type: string; data: string; metadata: string }>;
}

export interface AppendRow {
  outcome: 'ok' | 'conflict' | 'deleted';
  actual: string;
  next_version: string | null;
  last_position: string | null;
}

/**
 * The statement that commits a group of appends. Exported for tests that hold such a transaction
 * open (taking positions exactly as the store does) to prove that followers cannot skip it.
 */
export function appendBatchStatement(
  names: PostgresNames,
  batch: readonly SerializedAppend[],
): { text: string; values: unknown[] } {
  const owner: number[] = [];
  const place: number[] = [];
  const ids: string[] = [];
  const types: string[] = [];
  const data: string[] = [];
  const metadata: string[] = [];
  batch.forEach((append, index) => {
    append.events.forEach((event, offset) => {
      owner.push(index + 1);
      place.push(offset + 1);
      ids.push(event.id);
      types.push(event.type);
      data.push(event.data);
      metadata.push(event.metadata);
    });
  });
  return {
    text: `SELECT outcome, actual, next_version, last_position FROM ${names.appendBatch}(
      $1::text[], $2::bigint[], $3::integer[], $4::integer[], $5::integer[],
      $6::text[], $7::text[], $8::text[], $9::text[], $10::text)`,
    values: [
      batch.map((append) => append.stream),
      batch.map((append) => append.expected),
      batch.map((append) => append.events.length),
      owner,
      place,
      ids,
      types,
      data,
      metadata,
      names.channel,
    ],
  };
}

interface Pending {
  append: SerializedAppend;
  expected: ExpectedVersion;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

export interface AppendQueue {
  append(stream: string, events: readonly EventToAppend[], options: AppendOptions): Promise<AppendResult>;
  /** Resolves once every append queued so far is settled. */
  drain(): Promise<void>;
}

export interface AppendQueueOptions {
  /** Most appends sent in one transaction. */
  maxBatch: number;
  /** Most events sent in one transaction (an append larger than this goes alone). */
  maxEvents: number;
  /** Runs one group; rejects (with the port's error) when the transaction failed as a whole. */
  commit: (batch: readonly SerializedAppend[]) => Promise<AppendRow[]>;
  /** Called after a group that wrote events. */
  appended: () => void;
}

/** The number `append_batch` reads an expected version as. */
function codeExpectedVersion(expected: ExpectedVersion): number {
  if (expected === 'any') return -1;
  if (expected === 'no_stream') return -2;
  if (expected === 'stream_exists') return -3;
  return Number.isSafeInteger(expected) && expected >= 0 ? expected : -4;
}

/** PostgreSQL text cannot hold U+0000; JSON escapes it, names and types must not contain it. */
function assertStorable(what: string, value: string): void {
  if (value.includes('\u0000'))
    throw new TypeError(`${what} contains U+0000, which PostgreSQL text cannot hold`);
}

function serialize(
  stream: string,
  events: readonly EventToAppend[],
  expected: ExpectedVersion,
): SerializedAppend {
  assertStorable('stream name', stream);
  return {
    stream,
    expected: codeExpectedVersion(expected),
    events: events.map((event) => {
      const id = event.id ?? randomUUID();
      assertStorable('event id', id);
      assertStorable('event type', event.type);
      return {
        id,
        type: event.type,
        data: JSON.stringify(event.data),
        metadata: JSON.stringify(event.metadata),
      };
    }),
  };
}

export function createAppendQueue(options: AppendQueueOptions): AppendQueue {
  const pending: Pending[] = [];
  let inFlight: Promise<void> | null = null;
  let scheduled = false;

  function schedule(): void {
    if (scheduled || inFlight) return;
    scheduled = true;
    // setImmediate, not a microtask: appends issued in this turn of the event loop join the group.
    setImmediate(flush);
  }

  function flush(): void {
    scheduled = false;
    if (inFlight || pending.length === 0) return;
    let count = 0;
    let events = 0;
    while (count < pending.length && count < options.maxBatch) {
      const size = pending[count]!.append.events.length;
      if (count > 0 && events + size > options.maxEvents) break;
      events += size;
      count += 1;
    }
    const group = pending.splice(0, count);
    inFlight = options
      .commit(group.map((item) => item.append))
      .then(
        (rows) => {
          let wrote = false;
          group.forEach((item, index) => {
            const row = rows[index];
            if (!row) item.reject(new Error('append_batch returned fewer rows than appends'));
            else if (row.outcome === 'deleted') item.reject(new StreamDeletedError(item.append.stream));
            else if (row.outcome === 'conflict')
              item.reject(
                new WrongExpectedVersionError(item.append.stream, item.expected, Number(row.actual)),
              );
            else {
              wrote ||= item.append.events.length > 0;
              item.resolve({
                nextExpectedVersion: Number(row.next_version),
                position: Number(row.last_position),
              });
            }
          });
          if (wrote) options.appended();
        },
        (error: unknown) => {
          for (const item of group) item.reject(error);
        },
      )
      .finally(() => {
        inFlight = null;
        if (pending.length > 0) schedule();
      });
  }

  return {
    append(stream, events, appendOptions) {
      const expected = appendOptions.expectedVersion ?? 'any';
      return new Promise<AppendResult>((resolve, reject) => {
        // Data that cannot be stored (a cycle, a BigInt, U+0000 in a name) fails its append alone.
        const append = serialize(stream, events, expected);
        pending.push({ append, expected, resolve, reject });
        schedule();
      });
    },
    async drain() {
      while (inFlight || pending.length > 0) {
        if (inFlight) await inFlight;
        else flush();
      }
    },
  };
}
