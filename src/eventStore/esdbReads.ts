import type { AllStreamResolvedEvent, RecordedEvent as EsdbRecordedEvent } from '@eventstore/db-client';
import { BACKWARDS, END, FORWARDS } from '@eventstore/db-client';
import type { EsdbClient, EsdbRead } from './esdbClient.js';
import { collectRead } from './esdbClient.js';
import {
  fromResolved,
  isStreamDeleted,
  isStreamNotFound,
  numberToPosition,
  positionOfResolved,
  readAllFrom,
  revisionFromVersion,
  translateError,
  versionFromRevision,
} from './esdbTranslate.js';
import type { StreamState } from './esdbVisibility.js';
import type { ReadStreamOptions, RecordedEvent } from './eventStore.js';

export type LastEvent = { state: 'live'; event: EsdbRecordedEvent } | { state: Exclude<StreamState, 'live'> };

/** The port's version of the stream whose last event this is (0 when it is missing or deleted). */
export function versionOf(last: LastEvent): number {
  return last.state === 'live' ? versionFromRevision(last.event.revision) : 0;
}

/**
 * The reads the adapter is made of, each bounded by `timeoutMs` of silence (the client gives reads
 * no deadline). Client errors come out translated, except where a read gives them a meaning.
 */
export function createEsdbReads(client: EsdbClient, timeoutMs: number) {
  const read = <E>(request: () => EsdbRead<E>): Promise<E[]> => collectRead(request(), timeoutMs);
  const readLast = async (stream: string) =>
    (
      await read(() => client.readStream(stream, { fromRevision: END, direction: BACKWARDS, maxCount: 1 }))
    )[0];

  /** A stream's last event, or whether it was deleted (tombstone) or is missing. */
  async function lastEventOf(stream: string): Promise<LastEvent> {
    try {
      const last = await readLast(stream);
      return last?.event ? { state: 'live', event: last.event } : { state: 'missing' };
    } catch (error) {
      if (isStreamDeleted(error)) return { state: 'deleted' };
      if (isStreamNotFound(error)) return { state: 'missing' };
      throw translateError(error, { stream });
    }
  }

  /** The stream's raw EventStoreDB metadata and the revision of its metadata stream (`$$stream`). */
  async function rawMetadataOf(stream: string): Promise<{ raw: unknown; revision: bigint | null }> {
    try {
      const last = await readLast(`$$${stream}`);
      return { raw: last?.event?.data, revision: last?.event?.revision ?? null };
    } catch (error) {
      if (isStreamNotFound(error) || isStreamDeleted(error)) return { raw: undefined, revision: null };
      throw translateError(error, { stream });
    }
  }

  /** A stream's events as the port reads them; `[]` for a missing or deleted stream. */
  async function readStream(stream: string, options: ReadStreamOptions): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const maxCount = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const from = options.fromVersion;
    if (maxCount <= 0 || (backwards && from !== undefined && from < 1)) return [];
    const fromRevision = backwards
      ? from === undefined
        ? END
        : revisionFromVersion(from)
      : revisionFromVersion(Math.max(1, from ?? 1));
    try {
      const raw = await read(() =>
        client.readStream(stream, { fromRevision, direction: backwards ? BACKWARDS : FORWARDS, maxCount }),
      );
      return raw.map(fromResolved).filter((event): event is RecordedEvent => event !== null);
    } catch (error) {
      if (isStreamNotFound(error) || isStreamDeleted(error)) return [];
      throw translateError(error, { stream });
    }
  }

  /** One page of $all strictly after `cursor`; `exhausted` when it reached the end of the log. */
  async function readAllPage(cursor: number, count: number) {
    // Reading from a position includes the event there: ask for one more and drop it.
    const requested = count + (cursor > 0 ? 1 : 0);
    try {
      const raw = await read(() =>
        client.readAll({
          fromPosition: readAllFrom(cursor),
          direction: FORWARDS,
          maxCount: requested,
          resolveLinkTos: false,
        }),
      );
      const events: AllStreamResolvedEvent[] = [];
      let last: number | null = null;
      for (const resolved of raw) {
        const position = positionOfResolved(resolved);
        if (position === null || position <= cursor) continue;
        events.push(resolved);
        last = position;
      }
      return { events, last, exhausted: raw.length < requested };
    } catch (error) {
      throw translateError(error);
    }
  }

  /** One page of $all, newest first, strictly before `before` (null: from the end of the log). */
  async function readAllBackwards(before: number | null, count: number) {
    try {
      const raw = await read(() =>
        client.readAll({
          fromPosition: before === null ? END : numberToPosition(before),
          direction: BACKWARDS,
          maxCount: count,
          resolveLinkTos: false,
        }),
      );
      const events = raw.filter((resolved) => {
        const position = positionOfResolved(resolved);
        return position !== null && (before === null || position < before);
      });
      return { events, exhausted: raw.length < count };
    } catch (error) {
      throw translateError(error);
    }
  }

  return { lastEventOf, rawMetadataOf, readStream, readAllPage, readAllBackwards };
}
