import type { Middleware } from 'koa';
import type { Logger } from '../../log.js';
import {
  RateLimiterUnavailableError,
  type RateLimitClass,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitPolicy,
} from '../../rateLimit/rateLimiter.js';
import { HttpError, serviceUnavailable } from '../httpError.js';
import { principalOf } from './auth.js';

export interface RateLimitDeps {
  limiter: RateLimiter;
  policies: Readonly<Record<RateLimitClass, RateLimitPolicy>>;
  /**
   * Answers while `limiter` is unreachable (the shared one, when its server is down), so an outage
   * of the limiter's store degrades limits to per process rather than taking the API down with it.
   */
  fallback?: RateLimiter;
  log?: Logger;
  /** Told of each refusal (the metrics). */
  onRefused?(kind: RateLimitClass): void;
}

const seconds = (ms: number): number => Math.max(0, Math.ceil(ms / 1000));

/** The rate-limit headers of a decision; `X-RateLimit-Reset` is in seconds from now. */
function headersOf(decision: RateLimitDecision, now: number): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(seconds(decision.resetAt - now)),
  };
}

/**
 * The Assistant API's rate limits, one middleware per class: counts the request against the
 * current user's (by name) window of the route's class, sets `X-RateLimit-Limit`, `-Remaining` and
 * `-Reset` (seconds until the oldest counted request leaves the window and one more is allowed) on
 * the response — whatever it turns out to be, errors included — and answers 429 `rate_limited`
 * with `Retry-After` (seconds) when the window is full. It runs after authentication and before
 * the body is read, so a refused request costs no parsing.
 */
export function rateLimiting(deps: RateLimitDeps): (kind: RateLimitClass) => Middleware {
  let warnedAt = 0;
  async function take(key: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
    try {
      return await deps.limiter.take(key, policy);
    } catch (error) {
      if (!(error instanceof RateLimiterUnavailableError)) throw error;
      if (!deps.fallback) {
        throw serviceUnavailable('Rate limits cannot be checked; retry later', 1);
      }
      if (Date.now() - warnedAt > 10_000) {
        warnedAt = Date.now();
        deps.log?.warn({ err: error }, 'shared rate limits unavailable: limiting per process');
      }
      return deps.fallback.take(key, policy);
    }
  }
  return (kind) => {
    const policy = deps.policies[kind];
    return async (ctx, next) => {
      const principal = principalOf(ctx);
      const decision = await take(`${kind}:${principal.name}`, policy);
      const now = Date.now();
      const headers = headersOf(decision, now);
      if (!decision.allowed) {
        deps.onRefused?.(kind);
        const retryAfter = Math.max(1, seconds(decision.retryAt - now));
        throw new HttpError(
          429,
          'rate_limited',
          `Rate limit of ${policy.limit} ${kind} requests per ${seconds(policy.windowMs)} s reached; retry in ${retryAfter} s`,
          [],
          { ...headers, 'Retry-After': String(retryAfter) },
        );
      }
      ctx.set(headers);
      await next();
    };
  };
}
