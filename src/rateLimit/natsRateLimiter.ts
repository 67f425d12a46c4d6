import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { JetStreamApiError } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { createNatsLink, unlessLost } from '../bus/natsConnection.js';
import { describeError, withTimeout } from '../bus/natsErrors.js';
import { silentLogger, type Logger } from '../log.js';
import {
  decide,
  RateLimiterUnavailableError,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitPolicy,
} from './rateLimiter.js';

export interface NatsRateLimiterOptions {
  /** `nats://host:port`; several servers of one cluster separated by commas. */
  url: string;
  /** Key-value bucket of the request logs (default `archivist_rate_limits`). */
  bucket?: string;
  /** The longest window of any policy: a key untouched this long expires from the bucket. */
  maxWindowMs?: number;
  /** Epoch milliseconds (default `Date.now`). */
  now?: () => number;
  log?: Logger;
  /** How long a request waits for the connection before `RateLimiterUnavailableError` (default 1 s). */
  waitForConnectionMs?: number;
}

/** "wrong last sequence": a `create` of a key that exists, or an `update` at a stale revision. */
const WRONG_LAST_SEQUENCE = 10071;
const API_TIMEOUT_MS = 2_000;
/** Compare-and-set attempts of one request before it gives up (two processes rarely need two). */
const MAX_ATTEMPTS = 50;

/** A key-value key: the user's key hashed, since names may hold characters keys cannot. */
const kvKey = (key: string): string => createHash('sha256').update(key).digest('base64url');

/**
 * The RateLimiter shared by every API process on a NATS server: one key-value entry per key (user
 * and class) holding the times of its requests in the window, changed by compare-and-set (`create`
 * when absent, `update` at the revision read), read again and retried when another process wrote
 * first. The bucket's max age removes keys idle for a whole window. Times come from each process's
 * clock: processes should keep their clocks in sync (NTP), as for any shared window.
 */
export function createNatsRateLimiter(options: NatsRateLimiterOptions): RateLimiter {
  const log = options.log ?? silentLogger;
  const now = options.now ?? Date.now;
  const bucket = options.bucket ?? 'archivist_rate_limits';
  const waitMs = options.waitForConnectionMs ?? 1_000;
  const kvs = new WeakMap<object, KV>();
  const link = createNatsLink({
    url: options.url,
    name: 'archivist-rate-limits',
    log,
    apiTimeoutMs: API_TIMEOUT_MS,
    async setup(session) {
      const kv = await new Kvm(session.js).create(bucket, {
        history: 1,
        ttl: options.maxWindowMs ?? 60_000,
      });
      kvs.set(session, kv);
    },
  });

  /**
   * What this process last wrote or read of each key, at which revision. A request first tries its
   * compare-and-set against it: one round trip instead of a read and a write, and exact all the
   * same — the write succeeds only if nobody wrote since, and otherwise the key is read afresh.
   */
  const known = new Map<string, { times: number[]; revision: number }>();
  const KNOWN_KEYS = 10_000;
  const remember = (key: string, times: number[], revision: number): void => {
    known.delete(key);
    if (known.size >= KNOWN_KEYS) known.delete(known.keys().next().value!);
    known.set(key, { times, revision });
  };

  async function attempt(kv: KV, key: string, policy: RateLimitPolicy): Promise<RateLimitDecision | null> {
    const cached = known.get(key);
    if (cached) {
      const { decision, times } = decide(cached.times, now(), policy);
      // A refusal from memory may be stale (another process's requests aged out): read to be sure.
      if (decision.allowed) {
        try {
          remember(key, times, await kv.update(key, JSON.stringify(times), cached.revision));
          return decision;
        } catch (error) {
          if (!(error instanceof JetStreamApiError && error.code === WRONG_LAST_SEQUENCE)) throw error;
        }
      }
      known.delete(key);
    }
    const entry = await kv.get(key);
    const current =
      entry && entry.operation === 'PUT' && entry.length > 0 ? (entry.json<number[]>() ?? []) : [];
    const { decision, times } = decide(current, now(), policy);
    // A refused request changes nothing: no write, so no contention from clients that keep retrying.
    if (!decision.allowed) return decision;
    const value = JSON.stringify(times);
    try {
      const revision =
        entry && entry.operation === 'PUT'
          ? await kv.update(key, value, entry.revision)
          : await kv.create(key, value);
      remember(key, times, revision);
      return decision;
    } catch (error) {
      if (error instanceof JetStreamApiError && error.code === WRONG_LAST_SEQUENCE) return null;
      throw error;
    }
  }

  /**
   * One compare-and-set per key at a time in this process: concurrent requests of one user queue
   * here instead of racing each other on the server, so only other processes can make one lose a
   * round (a burst of 100 concurrent requests would otherwise need up to 100 rounds for the last).
   */
  const queues = new Map<string, Promise<unknown>>();
  function serialized<T>(key: string, run: () => Promise<T>): Promise<T> {
    const previous = queues.get(key) ?? Promise.resolve();
    const result = previous.then(run, run);
    const tail = result.catch(() => undefined);
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return result;
  }

  async function take(key: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
    let session;
    try {
      session = await link.ready(waitMs);
    } catch (error) {
      throw new RateLimiterUnavailableError(describeError(error));
    }
    const kv = kvs.get(session);
    if (!kv) throw new RateLimiterUnavailableError(link.reason());
    const id = kvKey(key);
    try {
      for (let attempts = 1; attempts <= MAX_ATTEMPTS; attempts += 1) {
        const decision = await unlessLost(
          session,
          withTimeout(attempt(kv, id, policy), API_TIMEOUT_MS, 'rate limit'),
        );
        if (decision) return decision;
        // Lost the round to another process: a random pause, so the same one does not lose every
        // round to a peer whose requests arrive in step with its own.
        await sleep(Math.random() * Math.min(attempts, 5));
      }
    } catch (error) {
      throw new RateLimiterUnavailableError(`rate limits on NATS: ${describeError(error)}`);
    }
    throw new RateLimiterUnavailableError(
      `rate limits on NATS: ${MAX_ATTEMPTS} compare-and-set attempts lost to other processes`,
    );
  }

  return {
    take: (key, policy) => serialized(key, () => take(key, policy)),
    close: () => link.close(),
  };
}
