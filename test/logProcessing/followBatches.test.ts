import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventSubscription } from '../../src/eventStore/eventStore.js';
import { followBatches } from '../../src/logProcessing/followBatches.js';

/** A subscription the test feeds batch by batch; it ends when closed or told to. */
function fedSubscription<Batch>() {
  const queue: Array<Batch | 'end'> = [];
  let wake: (() => void) | null = null;
  let closed = false;
  async function* run(): AsyncGenerator<Batch> {
    for (;;) {
      while (queue.length === 0 && !closed) await new Promise<void>((resolve) => (wake = resolve));
      const item = queue.shift();
      if (closed || item === undefined || item === 'end') return;
      yield item;
    }
  }
  const iterator = run();
  const subscription: EventSubscription<Batch> = {
    [Symbol.asyncIterator]: () => iterator,
    close: () => {
      closed = true;
      wake?.();
    },
  };
  const push = (item: Batch | 'end'): void => {
    queue.push(item);
    wake?.();
  };
  return { subscription, push, isClosed: () => closed };
}

/** Resolves once `condition` holds, looking again on each turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('followBatches', () => {
  it('hands batches over in order and ends with the outcome a handler returns, closing the subscription', async () => {
    const fed = fedSubscription<number>();
    const seen: number[] = [];
    [1, 2, 3, 4].forEach((batch) => fed.push(batch));
    const outcome = await followBatches(fed.subscription, {
      idleMs: 60_000,
      batch: async (batch) => {
        seen.push(batch);
        return batch === 3 ? 'stopped at 3' : undefined;
      },
      idle: async () => undefined,
    });
    expect(outcome).to.equal('stopped at 3');
    expect(seen).to.deep.equal([1, 2, 3]);
    expect(fed.isClosed()).to.equal(true);
  });

  it('calls idle each time the log stays quiet, between batches too, and ends when the subscription does', async () => {
    const fed = fedSubscription<string>();
    const calls: string[] = [];
    const following = followBatches(fed.subscription, {
      idleMs: 5,
      batch: async (batch) => {
        calls.push(batch);
        return undefined;
      },
      idle: async () => {
        calls.push('idle');
        return undefined;
      },
    });
    await until(() => calls.filter((call) => call === 'idle').length >= 2);
    fed.push('a');
    await until(() => calls.includes('a'));
    const idleBefore = calls.length;
    await until(() => calls.length > idleBefore);
    expect(calls.at(-1)).to.equal('idle');
    fed.push('end');
    expect(await following).to.equal('ended');
  });

  it('does not count the time a batch took to handle as quiet: a wait after it gets a whole idleMs', async () => {
    const fed = fedSubscription<string>();
    let idleCalls = 0;
    let idleDuringBatch = -1;
    fed.push('slow');
    fed.push('end');
    const outcome = await followBatches(fed.subscription, {
      idleMs: 5,
      batch: async () => {
        const before = idleCalls;
        // Longer than idleMs: the idle timer runs out while this batch is handled.
        await sleep(30);
        idleDuringBatch = idleCalls - before;
        return undefined;
      },
      idle: async () => {
        idleCalls += 1;
        return undefined;
      },
    });
    expect(outcome).to.equal('ended');
    expect(idleDuringBatch).to.equal(0);
    // The end was queued: it comes (in microtasks) before any fresh idle timer could run out.
    expect(idleCalls).to.equal(0);
  });

  it('listens to a pending pull of the subscription once, however many idle waits pass meanwhile', async () => {
    // A pull that settles only once the test says so, counting who listens to it.
    let listeners = 0;
    let settle: ((result: IteratorResult<string>) => void) | null = null;
    class CountedPull extends Promise<IteratorResult<string>> {
      override then<A = IteratorResult<string>, B = never>(
        onFulfilled?: ((value: IteratorResult<string>) => A | PromiseLike<A>) | null,
        onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
      ): Promise<A | B> {
        listeners += 1;
        return super.then(onFulfilled, onRejected);
      }
    }
    let pulls = 0;
    const iterator = {
      next: () => {
        pulls += 1;
        return pulls === 1
          ? new CountedPull((resolve) => (settle = resolve))
          : Promise.resolve({ done: true as const, value: undefined });
      },
      return: async () => ({ done: true as const, value: undefined }),
    } as unknown as AsyncIterator<string>;
    const subscription: EventSubscription<string> = {
      [Symbol.asyncIterator]: () => iterator,
      close: () => undefined,
    };
    let idleCalls = 0;
    const seen: string[] = [];
    const outcome = await followBatches(subscription, {
      idleMs: 1,
      batch: async (batch) => {
        seen.push(batch);
        return undefined;
      },
      idle: async () => {
        idleCalls += 1;
        if (idleCalls === 20) settle!({ done: false, value: 'late batch' });
        return undefined;
      },
    });
    expect(outcome).to.equal('ended');
    expect(seen).to.deep.equal(['late batch']);
    expect(idleCalls).to.be.at.least(20);
    expect(listeners).to.equal(1);
  });
});
