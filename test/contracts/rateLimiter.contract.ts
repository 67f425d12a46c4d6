import { expect } from 'chai';
import type { RateLimiter, RateLimitPolicy } from '../../src/rateLimit/rateLimiter.js';

export interface RateLimiterFixture {
  limiter: RateLimiter;
  /** Another limiter on the same store (another process's), for adapters that share windows. */
  another?: () => RateLimiter;
  dispose(): Promise<void>;
}

/** A clock the test moves: epoch milliseconds, starting now. */
export interface TestClock {
  now(): number;
}

let counter = 0;
/** A fresh key per test, so suites also work against a shared server. */
const newKey = (): string => `chat:user-${process.pid}-${Date.now()}-${(counter += 1)}`;

/** The RateLimiter port's semantics; every adapter must pass it unchanged. */
export function rateLimiterContract(
  adapter: string,
  create: (clock: TestClock) => Promise<RateLimiterFixture>,
): void {
  describe(`RateLimiter contract: ${adapter}`, function () {
    this.timeout(30_000);
    let at = 0;
    const clock: TestClock = { now: () => at };
    let fixture: RateLimiterFixture;
    let limiter: RateLimiter;
    const policy: RateLimitPolicy = { limit: 5, windowMs: 60_000 };
    beforeEach(async () => {
      at = Date.now();
      fixture = await create(clock);
      limiter = fixture.limiter;
    });
    afterEach(async () => fixture.dispose());

    it('allows `limit` requests in a window, counting down, and refuses the next', async () => {
      const key = newKey();
      const start = at;
      const remaining: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const decision = await limiter.take(key, policy);
        expect(decision.allowed).to.equal(true);
        expect(decision.limit).to.equal(5);
        expect(decision.resetAt).to.equal(start + 60_000);
        remaining.push(decision.remaining);
        at += 1_000;
      }
      expect(remaining).to.deep.equal([4, 3, 2, 1, 0]);
      const refused = await limiter.take(key, policy);
      expect(refused).to.include({ allowed: false, remaining: 0 });
      expect(refused.retryAt).to.equal(start + 60_000);
      expect(refused.resetAt).to.equal(start + 60_000);
    });

    it('slides: each request frees its place a window after it was made, not at a fixed boundary', async () => {
      const key = newKey();
      const start = at;
      for (let i = 0; i < 5; i += 1) {
        await limiter.take(key, policy);
        at += 10_000; // requests at 0, 10, 20, 30, 40 s
      }
      at = start + 59_999;
      expect((await limiter.take(key, policy)).allowed).to.equal(false);
      at = start + 60_000; // the first left the window: one place
      const again = await limiter.take(key, policy);
      expect(again).to.include({ allowed: true, remaining: 0 });
      expect(again.resetAt).to.equal(start + 70_000);
      expect((await limiter.take(key, policy)).allowed).to.equal(false);
      at = start + 95_000; // 10, 20, 30 s left too: 40 s, 60 s and this one remain
      expect((await limiter.take(key, policy)).remaining).to.equal(2);
    });

    it('does not count refused requests: a client that keeps retrying gets in when a place frees', async () => {
      const key = newKey();
      const start = at;
      for (let i = 0; i < 5; i += 1) await limiter.take(key, policy);
      for (let i = 0; i < 20; i += 1) {
        at += 1_000;
        expect((await limiter.take(key, policy)).allowed).to.equal(false);
      }
      at = start + 60_000;
      expect((await limiter.take(key, policy)).allowed).to.equal(true);
    });

    it('counts a long window exactly as requests age out of it one by one', async () => {
      const key = newKey();
      const start = at;
      const wide: RateLimitPolicy = { limit: 300, windowMs: 1_000 };
      for (let i = 0; i < 300; i += 1) {
        expect((await limiter.take(key, wide)).allowed).to.equal(true);
        at += 3; // requests at 0, 3, 6 … 897 ms
      }
      at = start + 999;
      expect((await limiter.take(key, wide)).allowed).to.equal(false);
      at = start + 1_000 + 600; // those of 0 … 600 ms left: 603 … 897 ms (99) remain
      const decision = await limiter.take(key, wide);
      expect(decision).to.include({ allowed: true, remaining: 200 });
      expect(decision.resetAt).to.equal(start + 603 + 1_000);
    });

    it('refuses until enough requests left when the limit was lowered', async () => {
      const key = newKey();
      const start = at;
      for (let i = 0; i < 5; i += 1) {
        await limiter.take(key, policy);
        at += 1_000; // 0, 1, 2, 3, 4 s
      }
      const refused = await limiter.take(key, { limit: 3, windowMs: 60_000 });
      expect(refused).to.include({ allowed: false, remaining: 0 });
      expect(refused.retryAt).to.equal(start + 2_000 + 60_000);
    });

    it('keeps a window per key', async () => {
      const [a, b] = [newKey(), newKey()];
      for (let i = 0; i < 5; i += 1) await limiter.take(a, policy);
      expect((await limiter.take(a, policy)).allowed).to.equal(false);
      expect(await limiter.take(b, policy)).to.include({ allowed: true, remaining: 4 });
      expect(await limiter.take(b, { limit: 50, windowMs: 60_000 })).to.include({
        allowed: true,
        remaining: 48,
      });
    });

    it('allows exactly `limit` of a burst of concurrent requests of one key', async () => {
      const key = newKey();
      const burst: RateLimitPolicy = { limit: 40, windowMs: 60_000 };
      const others = fixture.another ? [fixture.another(), fixture.another()] : [];
      const limiters = [limiter, ...others];
      try {
        const decisions = await Promise.all(
          Array.from({ length: 100 }, (_, i) => limiters[i % limiters.length]!.take(key, burst)),
        );
        const allowed = decisions.filter((decision) => decision.allowed);
        expect(allowed).to.have.length(40);
        expect(allowed.map((decision) => decision.remaining).sort((a, b) => a - b)).to.deep.equal(
          Array.from({ length: 40 }, (_, i) => i),
        );
      } finally {
        await Promise.all(others.map((other) => other.close()));
      }
    });

    it('shares windows between limiters on the same store, when the adapter is shared', async function () {
      if (!fixture.another) this.skip();
      const other = fixture.another();
      try {
        const key = newKey();
        for (let i = 0; i < 5; i += 1) await (i % 2 === 0 ? limiter : other).take(key, policy);
        expect((await limiter.take(key, policy)).allowed).to.equal(false);
        expect((await other.take(key, policy)).allowed).to.equal(false);
      } finally {
        await other.close();
      }
    });
  });
}
