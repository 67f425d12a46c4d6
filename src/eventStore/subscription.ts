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
 * A subscription made of a generator that runs until its signal aborts: aborted by `close()`, by the
 * caller's `signal` (also one that is aborted already), or when the consumer stops iterating.
 */
export function abortableSubscription<Batch>(
  outer: AbortSignal | undefined,
  run: (signal: AbortSignal) => AsyncGenerator<Batch>,
): EventSubscription<Batch> {
  const controller = new AbortController();
  const onOuterAbort = (): void => controller.abort();
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  if (outer?.aborted) controller.abort();

  async function* guarded(): AsyncGenerator<Batch> {
    try {
      yield* run(controller.signal);
    } finally {
      outer?.removeEventListener('abort', onOuterAbort);
      controller.abort();
    }
  }

  const iterator = guarded();
  return {
    [Symbol.asyncIterator]: () => iterator,
    close: () => controller.abort(),
  };
}

/**
 * A catch-up-then-live subscription built from two things an adapter has: a way to read the next
 * batch after a cursor, and a signal that something was appended. There is one code path for
 * catch-up and live — the subscription always reads from the store after its own cursor — so there
 * is no hand-over where an event could be missed or repeated; the signal only says when to look again.
 */
function createPullSubscription<Batch, Cursor>(
  appended: AppendSignal,
  /** Reads what follows `cursor`: the batch to yield (null when there is nothing new) and the next cursor. */
  next: (cursor: Cursor) => { batch: Batch | null; cursor: Cursor },
  start: Cursor,
  signal: AbortSignal | undefined,
): EventSubscription<Batch> {
  return abortableSubscription(signal, async function* (aborted) {
    let cursor = start;
    while (!aborted.aborted) {
      // Taken before reading: an append that lands while we read bumps it, so we never sleep on it.
      const seen = appended.generation();
      const step = next(cursor);
      cursor = step.cursor;
      if (step.batch !== null) {
        yield step.batch;
        continue;
      }
      await appended.wait(seen, aborted);
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
  read: (position: number, maxCount: number) => AllBatch,
  options: SubscribeToAllOptions,
): EventSubscription<AllBatch> {
  const maxBatch = options.maxBatch ?? 500;
  return createPullSubscription<AllBatch, number>(
    appended,
    (position) => {
      const batch = read(position, maxBatch);
      const moved = batch.events.length > 0 || batch.checkpoint > position;
      return { batch: moved ? batch : null, cursor: Math.max(position, batch.checkpoint) };
    },
    options.fromPosition ?? 0,
    options.signal,
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
  readFrom: (version: number, maxCount: number) => RecordedEvent[],
  options: SubscribeToStreamOptions,
): EventSubscription<RecordedEvent[]> {
  const maxBatch = options.maxBatch ?? 500;
  return createPullSubscription<RecordedEvent[], number>(
    appended,
    (fromVersion) => {
      const events = readFrom(fromVersion, maxBatch);
      const last = events.at(-1);
      return { batch: last ? events : null, cursor: last ? last.streamVersion + 1 : fromVersion };
    },
    options.fromVersion ?? 1,
    options.signal,
  );
}

export interface AppendSignal {
  /** Increases on every notification. */
  generation(): number;
  /** Resolves once the generation is past `seen`, after `pollMs` at the latest, or on abort. */
  wait(seen: number, signal: AbortSignal): Promise<void>;
  notify(): void;
}

/**
 * "Something was appended" for subscribers. `pollMs` bounds every wait, for stores that other
 * processes also write to (their appends raise no signal here); null waits for a notification.
 */
export function createAppendSignal(pollMs: number | null): AppendSignal {
  const waiters = new Set<() => void>();
  let generation = 0;
  return {
    generation: () => generation,
    notify(): void {
      generation += 1;
      for (const wake of [...waiters]) wake();
    },
    wait(seen: number, signal: AbortSignal): Promise<void> {
      if (signal.aborted || generation !== seen) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = pollMs === null ? null : setTimeout(done, pollMs);
        function done(): void {
          waiters.delete(done);
          if (timer) clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        waiters.add(done);
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

/**
 * When a subscription's read fails: how long to wait before reading again from the same cursor
 * (ms), or null to end the subscription with the error. `attempt` counts consecutive failures.
 */
export type ReadRetry = (error: unknown, attempt: number) => number | null;

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * `createPullSubscription` for stores whose reads are asynchronous (a server): the same single
 * code path for catch-up and live. A failed read (the server restarting) is retried from the same
 * cursor as `retry` says, so the subscription outlives an outage and resumes where it was.
 */
function createAsyncPullSubscription<Batch, Cursor>(
  appended: AppendSignal,
  next: (cursor: Cursor) => Promise<{ batch: Batch | null; cursor: Cursor }>,
  start: Cursor,
  signal: AbortSignal | undefined,
  retry: ReadRetry | undefined,
): EventSubscription<Batch> {
  return abortableSubscription(signal, async function* (aborted) {
    let cursor = start;
    let failures = 0;
    while (!aborted.aborted) {
      const seen = appended.generation();
      let step: { batch: Batch | null; cursor: Cursor };
      try {
        step = await next(cursor);
        failures = 0;
      } catch (error) {
        if (aborted.aborted) return;
        failures += 1;
        const delay = retry?.(error, failures) ?? null;
        if (delay === null) throw error;
        await abortableDelay(delay, aborted);
        continue;
      }
      if (aborted.aborted) return;
      cursor = step.cursor;
      if (step.batch !== null) {
        yield step.batch;
        continue;
      }
      await appended.wait(seen, aborted);
    }
  });
}

/** `pullAllSubscription` over an asynchronous filtered read; failed reads are retried as `retry` says. */
export function pullAllSubscriptionAsync(
  appended: AppendSignal,
  read: (position: number, maxCount: number) => Promise<AllBatch>,
  options: SubscribeToAllOptions,
  retry?: ReadRetry,
): EventSubscription<AllBatch> {
  const maxBatch = options.maxBatch ?? 500;
  return createAsyncPullSubscription<AllBatch, number>(
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

/** `pullStreamSubscription` over an asynchronous read; failed reads are retried as `retry` says. */
export function pullStreamSubscriptionAsync(
  appended: AppendSignal,
  readFrom: (version: number, maxCount: number) => Promise<RecordedEvent[]>,
  options: SubscribeToStreamOptions,
  retry?: ReadRetry,
): EventSubscription<RecordedEvent[]> {
  const maxBatch = options.maxBatch ?? 500;
  return createAsyncPullSubscription<RecordedEvent[], number>(
    appended,
    async (fromVersion) => {
      const events = await readFrom(fromVersion, maxBatch);
      const last = events.at(-1);
      return { batch: last ? events : null, cursor: last ? last.streamVersion + 1 : fromVersion };
    },
    options.fromVersion ?? 1,
    options.signal,
    retry,
  );
}

/**
 * An `AppendSignal` whose waits also end by polling, backing off while nothing happens: right
 * after a notification a wait lasts `minMs`, and the longer the store stays quiet the longer the
 * waits, up to `maxMs`. For stores whose notifications can be lost (a LISTEN connection that
 * drops): a lost one delays subscribers by `maxMs` at most, and a quiet store is polled rarely.
 */
export function createBackoffAppendSignal(minMs: number, maxMs: number): AppendSignal {
  const waiters = new Set<() => void>();
  let generation = 0;
  let lastNotified = Date.now();
  return {
    generation: () => generation,
    notify(): void {
      generation += 1;
      lastNotified = Date.now();
      for (const wake of [...waiters]) wake();
    },
    wait(seen: number, signal: AbortSignal): Promise<void> {
      if (signal.aborted || generation !== seen) return Promise.resolve();
      const quietFor = Date.now() - lastNotified;
      const pollMs = Math.min(maxMs, Math.max(minMs, quietFor / 2));
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, pollMs);
        function done(): void {
          waiters.delete(done);
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        waiters.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    },
  };
}
