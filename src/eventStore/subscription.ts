import type { EventSubscription, RecordedEvent } from './eventStore.js';

/**
 * A catch-up-then-live subscription built from two things an adapter has: a way to read the next
 * batch after a cursor, and a signal that something was appended. There is one code path for
 * catch-up and live — the subscription always reads from the store after its own cursor — so there
 * is no hand-over where an event could be missed or repeated; the signal only says when to look again.
 */
export interface PullSource<Cursor> {
  /** Reads the next events after `cursor`; returns them with the cursor to continue from. */
  next(cursor: Cursor, maxBatch: number): Promise<{ events: RecordedEvent[]; cursor: Cursor }>;
  appended: AppendSignal;
}

export function createPullSubscription<Cursor>(
  source: PullSource<Cursor>,
  start: Cursor,
  options: { maxBatch?: number | undefined; signal?: AbortSignal | undefined },
): EventSubscription {
  const controller = new AbortController();
  const onOuterAbort = (): void => controller.abort();
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const maxBatch = options.maxBatch ?? 500;

  async function* run(): AsyncGenerator<RecordedEvent[]> {
    let cursor = start;
    try {
      while (!controller.signal.aborted) {
        // Taken before reading: an append that lands while we read bumps it, so we never sleep on it.
        const seen = source.appended.generation();
        const { events, cursor: nextCursor } = await source.next(cursor, maxBatch);
        cursor = nextCursor;
        if (events.length > 0) {
          yield events;
          continue;
        }
        await source.appended.wait(seen, controller.signal);
      }
    } finally {
      options.signal?.removeEventListener('abort', onOuterAbort);
      controller.abort();
    }
  }

  const iterator = run();
  return {
    [Symbol.asyncIterator]: () => iterator,
    close: () => controller.abort(),
  };
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
