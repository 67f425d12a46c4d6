import { decide, type RateLimitDecision, type RateLimiter, type RateLimitPolicy } from './rateLimiter.js';

export interface MemoryRateLimiterOptions {
  /** Epoch milliseconds (default `Date.now`). */
  now?: () => number;
}

/**
 * The embedded RateLimiter: a sliding window log per key in this process's memory (at most
 * `limit` times per key: 100 numbers for a chat user). Keys whose every request has aged out are
 * dropped by a sweep once a minute, so idle users cost nothing.
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): RateLimiter {
  const now = options.now ?? Date.now;
  const logs = new Map<string, { times: number[]; windowMs: number }>();
  const sweep = setInterval(() => {
    const at = now();
    for (const [key, log] of logs) {
      if ((log.times.at(-1) ?? 0) <= at - log.windowMs) logs.delete(key);
    }
  }, 60_000);
  sweep.unref();
  return {
    take(key: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
      const { decision, times } = decide(logs.get(key)?.times ?? [], now(), policy);
      logs.set(key, { times, windowMs: policy.windowMs });
      return Promise.resolve(decision);
    },
    close() {
      clearInterval(sweep);
      logs.clear();
      return Promise.resolve();
    },
  };
}
