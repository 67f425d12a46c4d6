import { setTimeout as sleep } from 'node:timers/promises';
import type {
  AllBatch,
  EventFilter,
  EventSubscription,
  RecordedEvent,
  SubscribeToAllOptions,
  SubscribeToStreamOptions,
} from './eventStore.js';
import { matchesFilter } from './eventStore.js';

/**
 * The reason an ended subscription's own signal carries. One shared object: `abort()` without a
 * reason builds a DOMException, stack and all, and every wait for a task's end closes one.
 */
const SUBSCRIPTION_ENDED = new Error('the subscription ended');

/**
 * A subscription made of a generator that runs until its signal aborts: aborted by `close()`, by the
 * caller's `signal` (also one that is aborted already), or when the consumer stops iterating.
 */
export function abortableSubscription<Batch>(
  outer: AbortSignal | undefined,
  run: (signal: AbortSignal) => AsyncGenerator<Batch>,
): EventSubscription<Batch> {
  const controller = new AbortController();
  const onOuterAbort = (): void => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  if (outer?.aborted) controller.abort(outer.reason);

  async function* guarded(): AsyncGenerator<Batch> {
    try {
      yield* run(controller.signal);
    } finally {
      outer?.removeEventListener('abort', onOuterAbort);
      controller.abort(SUBSCRIPTION_ENDED);
    }
  }

  const iterator = guarded();
  return {
    [Symbol.asyncIterator]: () => iterator,
    close: () => controller.abort(SUBSCRIPTION_ENDED),
  };
}

type Step<Batch, Cursor> = { batch: Batch | null; cursor: Cursor };

/**
 * When a subscription's read fails: how long to wait before reading again from the same cursor
 * (ms), or null to end the subscription with the error. `attempt` counts consecutive failures.
 */
export type ReadRetry = (error: unknown, attempt: number) => number | null;

/**
 * A catch-up-then-live subscription built from two things an adapter has: a way to read the next
 * batch after a cursor, and a signal that something was appended. There is one code path for
 * catch-up and live — the subscription always reads from the store after its own cursor — so there
 * is no hand-over where an event could be missed or repeated; the signal only says when to look again.
 * Reads may be synchronous (a file) or not (a server); a failed read ends the subscription, or is
 * retried from the same cursor as `retry` says.
 */
function createPullSubscription<Batch, Cursor>(
  appended: AppendSignal,
  /** Reads what follows `cursor`: the batch to yield (null when there is nothing new) and the next cursor. */
  next: (cursor: Cursor) => Step<Batch, Cursor> | Promise<Step<Batch, Cursor>>,
  start: Cursor,
  signal: AbortSignal | undefined,
  retry: ReadRetry | undefined,
  /** The one stream this subscription reads, when it reads one: only its appends wake it. */
  stream?: string,
): EventSubscription<Batch> {
  return abortableSubscription(signal, async function* (aborted) {
    let cursor = start;
    let failures = 0;
    while (!aborted.aborted) {
      // Taken before reading: an append that lands while we read bumps it, so we never sleep on it.
      const seen = appended.generation();
      let step: Step<Batch, Cursor>;
      try {
        step = await next(cursor);
        failures = 0;
      } catch (error) {
        if (aborted.aborted) return;
        failures += 1;
        const delay = retry?.(error, failures) ?? null;
        if (delay === null) throw error;
        // A server restarting: read again from the same cursor, so the subscription outlives it.
        await sleep(delay, undefined, { signal: aborted }).catch(() => undefined);
        continue;
      }
      if (aborted.aborted) return;
      cursor = step.cursor;
      if (step.batch !== null) {
        yield step.batch;
        continue;
      }
      await appended.wait(seen, aborted, stream);
    }
  });
}

/**
 * `subscribeToAll` over a store's filtered read after a position. `read` applies the filter (with an
 * index where it can) and returns the matching events with the checkpoint its read reached, which
 * is past the events it skipped; a batch is yielded when it holds events or moves the checkpoint.
 */
export function pullAllSubscription(
  appended: AppendSignal,
  read: (position: number, maxCount: number) => AllBatch | Promise<AllBatch>,
  options: SubscribeToAllOptions,
  retry?: ReadRetry,
): EventSubscription<AllBatch> {
  const maxBatch = options.maxBatch ?? 500;
  return createPullSubscription<AllBatch, number>(
    appended,
    async (position) => {
      const batch = await read(position, maxBatch);
      const moved = batch.events.length > 0 || batch.checkpoint > position;
      return { batch: moved ? batch : null, cursor: Math.max(position, batch.checkpoint) };
    },
    options.fromPosition ?? 0,
    options.signal,
    retry,
  );
}

/**
 * A filtered read of the events after `position` from an unfiltered one in position order: the
 * checkpoint is the last event scanned, so it moves past the events the filter drops.
 */
export function filterScanned(
  scanned: readonly RecordedEvent[],
  position: number,
  filter: EventFilter | undefined,
): AllBatch {
  return {
    events: filter ? scanned.filter((event) => matchesFilter(event, filter)) : [...scanned],
    checkpoint: scanned.at(-1)?.position ?? position,
  };
}

/** `subscribeToStream` over a store's read of a stream's events from a version (1-based, inclusive). */
export function pullStreamSubscription(
  appended: AppendSignal,
  stream: string,
  readFrom: (version: number, maxCount: number) => RecordedEvent[] | Promise<RecordedEvent[]>,
  options: SubscribeToStreamOptions,
  retry?: ReadRetry,
): EventSubscription<RecordedEvent[]> {
  const maxBatch = options.maxBatch ?? 500;
  return createPullSubscription<RecordedEvent[], number>(
    appended,
    async (fromVersion) => {
      const events = await readFrom(fromVersion, maxBatch);
      const last = events.at(-1);
      return { batch: last ? events : null, cursor: last ? last.streamVersion + 1 : fromVersion };
    },
    options.fromVersion ?? 1,
    options.signal,
    retry,
    stream,
  );
}

export interface AppendSignal {
  /** Increases on every notification. */
  generation(): number;
  /**
   * Resolves once the generation is past `seen`, after `pollMs` at the latest, or on abort. With
   * `stream`, only a notification that names it (or names no streams) wakes the wait: a follower
   * of one stream does not read again for every append of the others.
   */
  wait(seen: number, signal: AbortSignal, stream?: string): Promise<void>;
  /** Something was appended: to `streams` when the notifier knows them, to any stream otherwise. */
  notify(streams?: Iterable<string>): void;
}

/**
 * "Something was appended" for subscribers. `poll` bounds every wait, for stores that other
 * processes also write to (their appends raise no signal here); null waits for a notification.
 * With `{ minMs, maxMs }` the bound backs off while nothing happens — `minMs` right after a
 * notification, growing with the quiet up to `maxMs` — for stores whose notifications can be lost
 * (a LISTEN connection that drops): a lost one delays subscribers by `maxMs` at most, and a quiet
 * store is polled rarely.
 */
export function createAppendSignal(poll: number | null | { minMs: number; maxMs: number }): AppendSignal {
  /** Waits woken by any append. */
  const waiters = new Set<() => void>();
  /** Waits woken only by appends to their stream (or appends whose streams were not named). */
  const streamWaiters = new Map<string, Set<() => void>>();
  let generation = 0;
  let lastNotified = Date.now();
  const pollMs = (): number | null =>
    poll === null || typeof poll === 'number'
      ? poll
      : Math.min(poll.maxMs, Math.max(poll.minMs, (Date.now() - lastNotified) / 2));
  const wakeAll = (wakes: Set<() => void> | undefined): void => {
    if (wakes) for (const wake of [...wakes]) wake();
  };
  return {
    generation: () => generation,
    notify(streams?: Iterable<string>): void {
      generation += 1;
      lastNotified = Date.now();
      wakeAll(waiters);
      if (streamWaiters.size === 0) return;
      if (streams === undefined) for (const wakes of [...streamWaiters.values()]) wakeAll(wakes);
      else for (const stream of streams) wakeAll(streamWaiters.get(stream));
    },
    wait(seen: number, signal: AbortSignal, stream?: string): Promise<void> {
      if (signal.aborted || generation !== seen) return Promise.resolve();
      const bound = pollMs();
      let wakes = waiters;
      if (stream !== undefined) {
        wakes = streamWaiters.get(stream) ?? new Set();
        streamWaiters.set(stream, wakes);
      }
      return new Promise<void>((resolve) => {
        const timer = bound === null ? null : setTimeout(done, bound);
        function done(): void {
          wakes.delete(done);
          if (stream !== undefined && wakes.size === 0 && streamWaiters.get(stream) === wakes)
            streamWaiters.delete(stream);
          if (timer) clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        wakes.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    },
  };
}

/** Live subscriptions of a store, so closing the store ends them instead of leaving them waiting. */
export function createSubscriptionRegistry() {
  const live = new Set<EventSubscription<unknown>>();
  return {
    track<Batch>(subscription: EventSubscription<Batch>): EventSubscription<Batch> {
      live.add(subscription);
      return {
        [Symbol.asyncIterator]: () => {
          const inner = subscription[Symbol.asyncIterator]();
          return {
            next: async () => {
              const result = await inner.next();
              if (result.done) live.delete(subscription);
              return result;
            },
            return: async () => {
              live.delete(subscription);
              subscription.close();
              return (await inner.return?.()) ?? { done: true, value: undefined };
            },
          };
        },
        close: () => {
          live.delete(subscription);
          subscription.close();
        },
      };
    },
    closeAll(): void {
      for (const subscription of live) subscription.close();
      live.clear();
    },
  };
}
