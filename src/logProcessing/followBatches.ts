import type { EventSubscription } from '../eventStore/eventStore.js';

export interface FollowHandlers<Batch, Outcome> {
  /** Handles one batch; returning an outcome stops following with it. */
  batch(batch: Batch): Promise<Outcome | undefined>;
  /**
   * Called when no batch arrived for `idleMs` (and again after each further `idleMs`): time to
   * write what was deferred. Returning an outcome stops following with it.
   */
  idle(): Promise<Outcome | undefined>;
  idleMs: number;
}

/**
 * Consumes a subscription one batch at a time, in order, with an idle hook in between: a subscriber
 * that defers cheap writes (a checkpoint that only moved past events it does not handle) can write
 * them once the log goes quiet. Resolves with the outcome a handler returned, or `ended` when the
 * subscription ended; closes the subscription either way.
 */
export async function followBatches<Batch, Outcome>(
  subscription: EventSubscription<Batch>,
  handlers: FollowHandlers<Batch, Outcome>,
): Promise<Outcome | 'ended'> {
  const iterator = subscription[Symbol.asyncIterator]();
  // One idle timer for the whole run, started again before each wait (a timer, a race and a
  // `finally` per batch were a fifth of what following the log allocated: every follower wakes for
  // every append). It wakes only a wait under way: one that runs out while a batch is handled does
  // nothing, and the next wait gets a whole `idleMs`. Each wait is a promise of its own, and each
  // pull of the iterator gets one reaction, which hands its result to the wait under way or keeps
  // it for the next: racing a long-lived idle promise would hang a reaction (and its batch) on it
  // per batch of a busy spell, and racing the pending pull would hang one on it per idle wake of a
  // quiet spell.
  type Arrival = IteratorResult<Batch> | 'idle';
  let wait: { resolve(value: Arrival): void; reject(error: unknown): void } | null = null;
  let kept: { result: IteratorResult<Batch> } | { error: unknown } | null = null;
  const takeWait = () => {
    const current = wait;
    wait = null;
    return current;
  };
  const timer = setTimeout(() => takeWait()?.resolve('idle'), handlers.idleMs);
  const pull = (): void => {
    iterator.next().then(
      (result) => {
        const current = takeWait();
        if (current) current.resolve(result);
        else kept = { result };
      },
      (error: unknown) => {
        const current = takeWait();
        if (current) current.reject(error);
        else kept = { error };
      },
    );
  };
  const arrival = (): Promise<Arrival> =>
    new Promise<Arrival>((resolve, reject) => {
      const arrived = kept;
      kept = null;
      if (arrived === null) wait = { resolve, reject };
      else if ('result' in arrived) resolve(arrived.result);
      else reject(arrived.error);
    });
  try {
    pull();
    for (;;) {
      timer.refresh();
      const result = await arrival();
      if (result === 'idle') {
        const outcome = await handlers.idle();
        if (outcome !== undefined) return outcome;
        continue;
      }
      if (result.done) return 'ended';
      const outcome = await handlers.batch(result.value);
      if (outcome !== undefined) return outcome;
      pull();
    }
  } finally {
    clearTimeout(timer);
    subscription.close();
    await iterator.return?.();
  }
}
