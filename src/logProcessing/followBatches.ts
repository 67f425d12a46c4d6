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
  // nothing, and the next wait gets a whole `idleMs`. Each wait is a promise of its own — racing a
  // long-lived idle promise instead would hang a reaction, and with it the batch, on that promise
  // for every batch of a busy spell.
  let wake: ((value: 'idle') => void) | null = null;
  const timer = setTimeout(() => wake?.('idle'), handlers.idleMs);
  try {
    let next = iterator.next();
    for (;;) {
      timer.refresh();
      const pending = next;
      const result = await new Promise<IteratorResult<Batch> | 'idle'>((resolve, reject) => {
        wake = resolve;
        pending.then(resolve, reject);
      });
      wake = null;
      if (result === 'idle') {
        const outcome = await handlers.idle();
        if (outcome !== undefined) return outcome;
        continue;
      }
      if (result.done) return 'ended';
      const outcome = await handlers.batch(result.value);
      if (outcome !== undefined) return outcome;
      next = iterator.next();
    }
  } finally {
    clearTimeout(timer);
    subscription.close();
    await iterator.return?.();
  }
}
