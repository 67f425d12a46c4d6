import type { ModelProbe } from './embedder.js';
import type { RetryPolicy } from './remoteCall.js';

/** Readiness is asked often (load balancers, every few seconds): a probe result is reused this long. */
const PROBE_TTL_MS = 10_000;

/** One attempt, and done before readiness's own 2 s limit so the probe reports its own reason. */
export function probePolicy(policy: RetryPolicy): RetryPolicy {
  return { ...policy, attempts: 1, timeoutMs: Math.min(policy.timeoutMs, 1_500) };
}

/**
 * A readiness probe that runs `check` at most once per `ttlMs` (concurrent askers share one run):
 * healthy with the reason `check` returns, or unhealthy with the message of what it threw.
 */
export function cachedProbe(
  check: () => Promise<string | null>,
  options: { ttlMs?: number; now?: () => number } = {},
): () => Promise<ModelProbe> {
  const ttlMs = options.ttlMs ?? PROBE_TTL_MS;
  const now = options.now ?? Date.now;
  let last: { at: number; result: Promise<ModelProbe> } | null = null;

  const run = async (): Promise<ModelProbe> => {
    try {
      return { healthy: true, reason: await check() };
    } catch (error) {
      return { healthy: false, reason: error instanceof Error ? error.message : String(error) };
    }
  };

  return () => {
    if (!last || now() - last.at >= ttlMs) last = { at: now(), result: run() };
    return last.result;
  };
}
