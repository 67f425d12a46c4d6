import type { AllStreamResolvedEvent, ResolvedEvent } from '@eventstore/db-client';
import type { Logger } from '../log.js';
import type { EsdbClient, EsdbSubscription } from './esdbClient.js';
import {
  TOMBSTONE_TYPE,
  fromResolved,
  isStreamDeleted,
  positionOfResolved,
  positionToNumber,
  serverFilterFor,
  subscribeAllFrom,
  subscribeStreamFrom,
  translateError,
  versionFromRevision,
} from './esdbTranslate.js';
import type { StreamVisibility } from './esdbVisibility.js';
import type {
  AllBatch,
  EventSubscription,
  RecordedEvent,
  SubscribeToAllOptions,
  SubscribeToStreamOptions,
} from './eventStore.js';
import { EventStoreUnavailableError, matchesFilter } from './eventStore.js';
import { abortableSubscription } from './subscription.js';

/**
 * Batches from a client subscription (an object-mode Readable): whatever is buffered when the
 * consumer asks, up to `maxBatch`, so a catch-up yields full batches and a live follower yields
 * each append as soon as it arrives. Ends when the source ends or `signal` aborts; throws the
 * source's error after the events received before it.
 */
export async function* readBatches<T>(
  source: EsdbSubscription,
  maxBatch: number,
  signal: AbortSignal,
  side?: SideChannel,
): AsyncGenerator<T[]> {
  // Set from event listeners, so kept in an object (TypeScript does not see closures assign).
  const state: { failure: { error: unknown } | null; ended: boolean } = { failure: null, ended: false };
  let wake: (() => void) | null = null;
  const notify = (): void => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };
  const onError = (error: unknown): void => {
    state.failure ??= { error };
    notify();
  };
  const onEnd = (): void => {
    state.ended = true;
    notify();
  };
  // Listening for 'error' from the start also keeps an error from crashing the process.
  source.on('error', onError);
  source.on('end', onEnd);
  source.on('readable', notify);
  signal.addEventListener('abort', notify);
  const stopSide = side?.onWake(notify);
  try {
    while (!signal.aborted) {
      const batch: T[] = [];
      while (batch.length < maxBatch) {
        const item = source.read();
        if (item === null) break;
        batch.push(item as T);
      }
      if (side) side.read += batch.length;
      if (batch.length > 0 || side?.pending()) {
        yield batch;
        continue;
      }
      if (state.failure) throw state.failure.error;
      if (state.ended || source.readableEnded) return;
      // read() returned null, so the source emits 'readable' on its next push: no wake-up is lost.
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    source.removeListener('error', onError);
    source.removeListener('end', onEnd);
    source.removeListener('readable', notify);
    signal.removeEventListener('abort', notify);
    stopSide?.();
  }
}

/**
 * What arrives beside a subscription's events (the server's checkpoints): `read` counts the items
 * read from the source, so a checkpoint can be placed exactly among them; `pending` says there is
 * something to hand over even when no event is buffered, and `onWake` wakes the reader for it.
 */
export interface SideChannel {
  read: number;
  pending(): boolean;
  onWake(wake: () => void): () => void;
}

/**
 * The server's checkpoints of a filtered subscription, each placed after the events that were
 * pushed before it: the client calls `checkpointReached` in stream order, so the events at or
 * before that position are those already read plus those still buffered at that moment.
 */
function createCheckpointChannel() {
  const queue: Array<{ position: number; afterItems: number }> = [];
  let wake: (() => void) | null = null;
  let consumed = 0;
  const channel = {
    read: 0,
    pending: () => queue.length > 0 && queue[0]!.afterItems <= channel.read,
    onWake(listener: () => void) {
      wake = listener;
      return () => {
        wake = null;
      };
    },
    /** Called by the client: `buffered` is how many items wait in the source right now. */
    reached(position: number, buffered: number): void {
      queue.push({ position, afterItems: channel.read + buffered });
      wake?.();
    },
    /** After `count` more items were processed: the newest checkpoint they complete, if any. */
    advance(count: number): number | null {
      consumed += count;
      let position: number | null = null;
      while (queue.length > 0 && queue[0]!.afterItems <= consumed) position = queue.shift()!.position;
      return position;
    },
    reset(): void {
      queue.length = 0;
      channel.read = 0;
      consumed = 0;
    },
  };
  return channel;
}

/** What a subscription made of one batch from the server. */
interface SubscriptionStep<Cursor, Batch> {
  /** What to hand to the consumer; null when there is nothing (all filtered out). */
  batch: Batch | null;
  /** Where to resume after this batch. */
  cursor: Cursor;
  /** Nothing more can come (e.g. the stream was deleted): end the subscription. */
  done?: boolean;
}

interface ResubscribingOptions<Raw, Cursor, Batch> {
  start: Cursor;
  /** Opens a server subscription delivering what comes after `cursor`. */
  open(cursor: Cursor): EsdbSubscription;
  /** Items that arrive beside the events (checkpoints), read with them. */
  side?: SideChannel;
  /** Turns a batch from the server into what the consumer gets; may throw (then the batch is read again). */
  process(raw: Raw[], cursor: Cursor): Promise<SubscriptionStep<Cursor, Batch>>;
  /** Errors that end the subscription quietly instead of being retried or thrown. */
  isEnd?(error: unknown): boolean;
  maxBatch: number;
  signal?: AbortSignal | undefined;
  log: Logger;
  description: string;
  retryMinMs?: number;
  retryMaxMs?: number;
}

/**
 * A subscription that survives the server going away: when the connection fails it waits (with
 * backoff, forever) and subscribes again from the position of the last batch it handed over. The
 * cursor moves only after a batch was yielded, and the server starts strictly after the cursor, so
 * a reconnection neither skips nor repeats an event. Errors that retrying cannot fix are thrown to
 * the consumer. Ends on `close()`, on abort, or when the consumer stops iterating.
 */
function createResubscribingSubscription<Raw, Cursor, Batch>(
  options: ResubscribingOptions<Raw, Cursor, Batch>,
): EventSubscription<Batch> {
  const retryMinMs = options.retryMinMs ?? 200;
  const retryMaxMs = options.retryMaxMs ?? 5_000;

  return abortableSubscription(options.signal, async function* (signal) {
    let cursor = options.start;
    let failures = 0;
    while (!signal.aborted) {
      const source = options.open(cursor);
      try {
        for await (const raw of readBatches<Raw>(source, options.maxBatch, signal, options.side)) {
          const step = await options.process(raw, cursor);
          failures = 0;
          if (step.batch !== null) yield step.batch;
          cursor = step.cursor;
          if (step.done) return;
        }
        if (signal.aborted) return;
        // The server ended a subscription that should run forever: subscribe again.
      } catch (error) {
        if (signal.aborted || options.isEnd?.(error)) return;
        const translated = translateError(error);
        if (!(translated instanceof EventStoreUnavailableError)) throw translated;
        failures += 1;
        if (failures === 1 || failures % 20 === 0) {
          options.log.warn(
            { err: translated, failures, subscription: options.description },
            'event store subscription lost; subscribing again',
          );
        }
      } finally {
        // A late error from a cancelled call must not reach an 'error' event nobody listens to.
        source.on('error', () => undefined);
        source.unsubscribe().catch(() => undefined);
        source.destroy();
      }
      await sleep(Math.min(retryMaxMs, retryMinMs * 2 ** Math.max(0, failures - 1)), signal);
    }
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The port's subscription to all streams on a server catch-up subscription to $all, filtered on
 * the server as far as it can (see `serverFilterFor`) and exactly here; events of deleted streams,
 * still in $all until a scavenge, are dropped. The cursor is the position of the last event the
 * server sent (filtered out or not), which the server's next subscription starts after; the
 * server's filter checkpoints move it past the events its filter skipped.
 */
export function subscribeToAllOn(
  client: EsdbClient,
  visibility: StreamVisibility,
  options: SubscribeToAllOptions,
  log: Logger,
): EventSubscription<AllBatch> {
  const filter = options.filter;
  const serverFilter = serverFilterFor(filter);
  const maxBatch = options.maxBatch ?? 500;
  const checkpoints = createCheckpointChannel();
  return createResubscribingSubscription<AllStreamResolvedEvent, number, AllBatch>({
    start: options.fromPosition ?? 0,
    side: checkpoints,
    open: (cursor) => {
      checkpoints.reset();
      const source = client.subscribeToAll(
        {
          fromPosition: subscribeAllFrom(cursor),
          filter: {
            ...serverFilter,
            checkpointInterval: 1,
            checkpointReached: (_subscription, position) =>
              checkpoints.reached(positionToNumber(position), source.readableLength ?? 0),
          },
          resolveLinkTos: false,
        },
        { highWaterMark: maxBatch },
      );
      return source;
    },
    async process(raw, cursor) {
      let next = cursor;
      const candidates: RecordedEvent[] = [];
      for (const resolved of raw) {
        const position = positionOfResolved(resolved);
        if (position === null || position <= next) continue;
        next = position;
        const event = fromResolved(resolved);
        if (event && matchesFilter(event, filter)) candidates.push(event);
      }
      const reached = checkpoints.advance(raw.length);
      if (reached !== null) next = Math.max(next, reached);
      const events = await visibility.visible(candidates);
      return {
        batch: events.length > 0 || next > cursor ? { events, checkpoint: next } : null,
        cursor: next,
      };
    },
    maxBatch,
    signal: options.signal,
    log,
    description: 'subscribeToAll',
  });
}

/** The port's subscription to one stream on a server catch-up subscription; the cursor is the next version. */
export function subscribeToStreamOn(
  client: EsdbClient,
  stream: string,
  options: SubscribeToStreamOptions,
  log: Logger,
): EventSubscription<RecordedEvent[]> {
  const maxBatch = options.maxBatch ?? 500;
  return createResubscribingSubscription<ResolvedEvent, number, RecordedEvent[]>({
    start: Math.max(1, options.fromVersion ?? 1),
    open: (version) =>
      client.subscribeToStream(
        stream,
        { fromRevision: subscribeStreamFrom(version), resolveLinkTos: false },
        { highWaterMark: maxBatch },
      ),
    async process(raw, version) {
      let next = version;
      const events: RecordedEvent[] = [];
      for (const resolved of raw) {
        const record = resolved.event;
        if (!record) continue;
        // The server sends the tombstone, then ends the subscription: nothing more can come.
        if (record.type === TOMBSTONE_TYPE)
          return { batch: events.length > 0 ? events : null, cursor: next, done: true };
        const streamVersion = versionFromRevision(record.revision);
        if (streamVersion < next) continue;
        next = streamVersion + 1;
        const event = fromResolved(resolved);
        if (event) events.push(event);
      }
      return { batch: events.length > 0 ? events : null, cursor: next };
    },
    isEnd: isStreamDeleted,
    maxBatch,
    signal: options.signal,
    log,
    description: `subscribeToStream ${stream}`,
  });
}
