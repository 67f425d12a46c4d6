import type {
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
export function abortableSubscription(
  outer: AbortSignal | undefined,
  run: (signal: AbortSignal) => AsyncGenerator<RecordedEvent[]>,
): EventSubscription {
  const controller = new AbortController();
  const onOuterAbort = (): void => controller.abort();
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  if (outer?.aborted) controller.abort();

  async function* guarded(): AsyncGenerator<RecordedEvent[]> {
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
interface PullSource<Cursor> {
  /** Reads the next events after `cursor`; returns them with the cursor to continue from. */
  next(cursor: Cursor, maxBatch: number): Promise<{ events: RecordedEvent[]; cursor: Cursor }>;
  appended: AppendSignal;
}

function createPullSubscription<Cursor>(
  source: PullSource<Cursor>,
  start: Cursor,
  options: { maxBatch?: number | undefined; signal?: AbortSignal | undefined },
): EventSubscription {
  const maxBatch = options.maxBatch ?? 500;
  return abortableSubscription(options.signal, async function* (signal) {
    let cursor = start;
    while (!signal.aborted) {
      // Taken before reading: an append that lands while we read bumps it, so we never sleep on it.
      const seen = source.appended.generation();
      const { events, cursor: nextCursor } = await source.next(cursor, maxBatch);
      cursor = nextCursor;
      if (events.length > 0) {
        yield events;
        continue;
      }
      await source.appended.wait(seen, signal);
    }
  });
}

/**
 * `subscribeToAll` over a store's read of the events after a position (unfiltered, in position
 * order): the filter is applied here, so the cursor moves past the events it skips and a quiet
 * subscription does not scan them again on every wake-up.
 */
export function pullAllSubscription(
  appended: AppendSignal,
  readAfter: (position: number, maxCount: number) => RecordedEvent[],
  options: SubscribeToAllOptions,
): EventSubscription {
  const filter = options.filter;
  return createPullSubscription<number>(
    {
      appended,
      async next(cursor, max) {
        const scanned = readAfter(cursor, max);
        return {
          events: filter ? scanned.filter((event) => matchesFilter(event, filter)) : scanned,
          cursor: scanned.at(-1)?.position ?? cursor,
        };
      },
    },
    options.fromPosition ?? 0,
    options,
  );
}

/** `subscribeToStream` over a store's read of a stream's events from a version (1-based, inclusive). */
export function pullStreamSubscription(
  appended: AppendSignal,
  readFrom: (version: number, maxCount: number) => RecordedEvent[],
  options: SubscribeToStreamOptions,
): EventSubscription {
  return createPullSubscription<number>(
    {
      appended,
      async next(fromVersion, max) {
        const events = readFrom(fromVersion, max);
        const last = events.at(-1);
        return { events, cursor: last ? last.streamVersion + 1 : fromVersion };
      },
    },
    options.fromVersion ?? 1,
    options,
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
  const live = new Set<EventSubscription>();
  return {
    track(subscription: EventSubscription): EventSubscription {
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
