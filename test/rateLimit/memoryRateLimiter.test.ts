import { createMemoryRateLimiter } from '../../src/rateLimit/memoryRateLimiter.js';
import { rateLimiterContract } from '../contracts/rateLimiter.contract.js';

rateLimiterContract('memory', (clock) => {
  const limiter = createMemoryRateLimiter({ now: clock.now });
  return Promise.resolve({ limiter, dispose: () => limiter.close() });
});
