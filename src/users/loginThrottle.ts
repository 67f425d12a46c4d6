/**
 * Failed logins counted per key (a user name, a client address) in a sliding window: once a key has
 * `maxFailures` failures in the last `windowMs`, attempts under it are refused before any password
 * is checked, so guessing stops dead rather than slowing down. A successful login clears its user
 * name's failures (it proves the password), not its client's. In this process's memory.
 */
export interface LoginThrottle {
  /** Milliseconds until an attempt under these keys may be made; 0 when one may be made now. */
  retryAfterMs(keys: readonly LoginKey[]): number;
  failed(keys: readonly LoginKey[]): void;
  succeeded(user: string): void;
}

export interface LoginKey {
  key: string;
  maxFailures: number;
}

const SWEEP_ABOVE = 10_000;

export function createLoginThrottle(options: { windowMs: number; now?: () => number }): LoginThrottle {
  const now = options.now ?? Date.now;
  const failures = new Map<string, number[]>();

  /** The key's failures still in the window (dropping the others, and the key when none is left). */
  function recent(key: string, at: number): number[] {
    const times = (failures.get(key) ?? []).filter((time) => time > at - options.windowMs);
    if (times.length > 0) failures.set(key, times);
    else failures.delete(key);
    return times;
  }

  return {
    retryAfterMs(keys) {
      const at = now();
      let wait = 0;
      for (const { key, maxFailures } of keys) {
        const times = recent(key, at);
        if (times.length < maxFailures) continue;
        // The failure whose leaving brings the count under the limit.
        const freeing = times[times.length - maxFailures]!;
        wait = Math.max(wait, freeing + options.windowMs - at);
      }
      return wait;
    },
    failed(keys) {
      const at = now();
      // Many names or addresses tried once each: forget those whose failures have all aged out.
      if (failures.size > SWEEP_ABOVE) for (const key of [...failures.keys()]) recent(key, at);
      for (const { key } of keys) failures.set(key, [...recent(key, at), at]);
    },
    succeeded(user) {
      failures.delete(userKey(user));
    },
  };
}

/** User names are compared as the users aggregate compares them: case-insensitively. */
export const userKey = (user: string): string => `user:${user.trim().toLowerCase()}`;
export const clientKey = (address: string): string => `client:${address}`;
