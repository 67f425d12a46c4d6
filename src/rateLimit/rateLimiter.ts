import { BrandedError } from '../brandedError.js';

/**
 * What a route's requests count against: `chat` for the chat and conversation endpoints, `tools`
 * for tool executions (`execute_tool`, `confirm_action`). A route declares its class
 * (`rateLimit: 'chat'`); routes without one are not limited.
 */
export type RateLimitClass = 'chat' | 'tools';

/** At most `limit` requests in any `windowMs` (a sliding window). */
export interface RateLimitPolicy {
  limit: number;
  windowMs: number;
}

/** The answer to one request. Times are epoch milliseconds of the limiter's clock. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests still allowed now, after this one (0 when refused). */
  remaining: number;
  /** When the oldest request counted leaves the window, so `remaining` grows again. */
  resetAt: number;
  /** When a refused request could be allowed again; equal to `resetAt` (and `now` when allowed). */
  retryAt: number;
}

/**
 * Counts requests per key (a user and a class) in a sliding window: a request is allowed when
 * fewer than `limit` allowed requests of the same key fell in the last `windowMs`, and then counts
 * itself. A refused request is not counted, so a client that keeps retrying is let in as soon as
 * its oldest request ages out. Exact, not an estimate: the 101st request within a minute of the
 * first of 100 is refused whoever serves it, when the adapter is shared.
 */
export interface RateLimiter {
  take(key: string, policy: RateLimitPolicy): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

/**
 * The limiter's storage is unreachable (or too contended to answer in time). The HTTP layer falls
 * back to per-process limits on it, by `instanceof` (branded: the adapter is imported lazily).
 */
export class RateLimiterUnavailableError extends BrandedError {
  override readonly name = 'RateLimiterUnavailableError';
}

/**
 * The sliding-window-log decision over the times (ascending) of the requests already counted:
 * returns the decision and the times to keep (those still in the window, plus this one if allowed).
 * Shared by the adapters, so in-process and shared limiters cannot disagree.
 */
export function decide(
  times: readonly number[],
  now: number,
  policy: RateLimitPolicy,
): { decision: RateLimitDecision; times: number[] } {
  const since = now - policy.windowMs;
  const kept = times.filter((time) => time > since);
  const allowed = kept.length < policy.limit;
  if (allowed) kept.push(now);
  // The request whose leaving lets one more in (the oldest, unless the limit was lowered meanwhile).
  const freeing = kept[Math.max(0, kept.length - policy.limit)] ?? now;
  const resetAt = (kept[0] ?? now) + policy.windowMs;
  return {
    decision: {
      allowed,
      limit: policy.limit,
      remaining: Math.max(0, policy.limit - kept.length),
      resetAt: allowed ? resetAt : freeing + policy.windowMs,
      retryAt: allowed ? now : freeing + policy.windowMs,
    },
    times: kept,
  };
}
