/** Waiting in tests for something that happens asynchronously (a server, a projection, a worker). */
import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

/**
 * Polls `probe` until it returns something other than undefined; fails after `timeoutMs`, naming
 * `what` it waited for.
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached in time`);
    await sleep(10);
  }
}
