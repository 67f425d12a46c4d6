import { expect } from 'chai';
import { createNatsRateLimiter } from '../../src/rateLimit/natsRateLimiter.js';
import { RateLimiterUnavailableError, type RateLimiter } from '../../src/rateLimit/rateLimiter.js';
import { rateLimiterContract } from '../contracts/rateLimiter.contract.js';
import { expectRejection } from '../support/expectRejection.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';

describe('NATS rate limiter against a real nats-server', function () {
  this.timeout(60_000);
  let server: NatsServerHandle | null = null;

  before(async function () {
    server = await startNatsServer(); // prints why when it returns null
    if (!server) this.skip();
  });
  after(async () => {
    await server?.dispose();
  });

  rateLimiterContract('nats', (clock) => {
    const open: RateLimiter[] = [];
    const create = (): RateLimiter => {
      const limiter = createNatsRateLimiter({
        url: server!.url,
        bucket: 'archivist_contract_limits',
        now: clock.now,
      });
      open.push(limiter);
      return limiter;
    };
    return Promise.resolve({
      limiter: create(),
      another: create,
      dispose: async () => {
        await Promise.all(open.splice(0).map((limiter) => limiter.close()));
      },
    });
  });

  it('fails with RateLimiterUnavailableError, soon, when no server answers', async () => {
    const limiter = createNatsRateLimiter({ url: 'nats://127.0.0.1:1', waitForConnectionMs: 200 });
    try {
      const started = Date.now();
      await expectRejection(
        limiter.take('chat:someone', { limit: 1, windowMs: 60_000 }),
        RateLimiterUnavailableError,
      );
      expect(Date.now() - started).to.be.below(2_000);
    } finally {
      await limiter.close();
    }
  });
});
