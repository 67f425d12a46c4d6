import type { RateLimitDecision, RateLimiter, RateLimitPolicy } from './rateLimiter.js';

export interface MemoryRateLimiterOptions {
  /** Epoch milliseconds (default `Date.now`). */
  now?: () => number;
}

/** A key's log: the times of its counted requests, oldest first, from `start` on. */
interface Log {
  times: number[];
  start: number;
  windowMs: number;
}

/**
 * The embedded RateLimiter: a sliding window log per key in this process's memory, the same
 * decision as `decide` (rateLimiter.ts) in constant amortised time: requests that aged out are
 * skipped from the front and the array compacted now and then, so a high limit does not make each
 * request copy its whole window. Keys whose every request has aged out are dropped by a sweep once
 * a minute, so idle users cost nothing.
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): RateLimiter {
  const now = options.now ?? Date.now;
  const logs = new Map<string, Log>();
  const sweep = setInterval(() => {
    const at = now();
    for (const [key, log] of logs) {
      if ((log.times.at(-1) ?? 0) <= at - log.windowMs) logs.delete(key);
    }
  }, 60_000);
  sweep.unref();

  function take(key: string, policy: RateLimitPolicy): RateLimitDecision {
    const at = now();
    let log = logs.get(key);
    if (!log) {
      log = { times: [], start: 0, windowMs: policy.windowMs };
      logs.set(key, log);
    }
    log.windowMs = policy.windowMs;
    const { times } = log;
    const since = at - policy.windowMs;
    while (log.start < times.length && times[log.start]! <= since) log.start += 1;
    if (log.start > 64 && log.start * 2 > times.length) {
      times.splice(0, log.start);
      log.start = 0;
    }
    const allowed = times.length - log.start < policy.limit;
    if (allowed) times.push(at);
    const count = times.length - log.start;
    const oldest = times[log.start] ?? at;
    // The request whose leaving lets one more in (the oldest, unless the limit was lowered meanwhile).
    const freeing = times[log.start + Math.max(0, count - policy.limit)] ?? at;
    return {
      allowed,
      limit: policy.limit,
      remaining: Math.max(0, policy.limit - count),
      resetAt: (allowed ? oldest : freeing) + policy.windowMs,
      retryAt: allowed ? at : freeing + policy.windowMs,
    };
  }

  return {
    take: (key, policy) => Promise.resolve(take(key, policy)),
    close() {
      clearInterval(sweep);
      logs.clear();
      return Promise.resolve();
    },
  };
}
