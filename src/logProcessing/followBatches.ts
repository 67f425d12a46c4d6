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
  try {
    let next = iterator.next();
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<'idle'>((resolve) => {
        timer = setTimeout(() => resolve('idle'), handlers.idleMs);
      });
      const result = await Promise.race([next, idle]).finally(() => clearTimeout(timer));
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
    subscription.close();
    await iterator.return?.();
  }
}
