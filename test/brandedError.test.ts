import { expect } from 'chai';
import { BrandedError } from '../src/brandedError.js';
import { BusUnavailableError } from '../src/bus/bus.js';
import { EventStoreUnavailableError } from '../src/eventStore/eventStore.js';
import { RateLimiterUnavailableError } from '../src/rateLimit/rateLimiter.js';
import {
  ReadStoreUnavailableError,
  UnsupportedQueryError,
  WriteConflictError,
} from '../src/readStore/readStore.js';
import { VectorIndexError } from '../src/vector/vectorIndex.js';
import type * as BusModule from '../src/bus/bus.js';
import type * as EventStoreModule from '../src/eventStore/eventStore.js';
import type * as RateLimiterModule from '../src/rateLimit/rateLimiter.js';
import type * as ReadStoreModule from '../src/readStore/readStore.js';
import type * as VectorIndexModule from '../src/vector/vectorIndex.js';

/** A second evaluation of a module: a query string makes the loader load it again, with its own classes. */
const secondCopy = <T>(path: string): Promise<T> => import(`${path}?copy=${Date.now()}`) as Promise<T>;

describe('errors branded across copies of their module', () => {
  it('are recognised by instanceof when made by another copy of the module (as a lazily imported adapter makes them)', async () => {
    const readStore = await secondCopy<typeof ReadStoreModule>('../src/readStore/readStore.js');
    const bus = await secondCopy<typeof BusModule>('../src/bus/bus.js');
    const events = await secondCopy<typeof EventStoreModule>('../src/eventStore/eventStore.js');
    const vectors = await secondCopy<typeof VectorIndexModule>('../src/vector/vectorIndex.js');
    const limits = await secondCopy<typeof RateLimiterModule>('../src/rateLimit/rateLimiter.js');
    expect(readStore.WriteConflictError).not.to.equal(WriteConflictError);

    const conflict = new readStore.WriteConflictError('unexpected', 'changed meanwhile');
    expect(conflict instanceof WriteConflictError).to.equal(true);
    expect(conflict.reason).to.equal('unexpected');
    expect(new readStore.ReadStoreUnavailableError('down') instanceof ReadStoreUnavailableError).to.equal(
      true,
    );
    expect(new readStore.UnsupportedQueryError('no') instanceof UnsupportedQueryError).to.equal(true);
    expect(new bus.BusUnavailableError('down') instanceof BusUnavailableError).to.equal(true);
    expect(new events.EventStoreUnavailableError('down') instanceof EventStoreUnavailableError).to.equal(
      true,
    );
    expect(new vectors.VectorIndexError('unavailable', 'down') instanceof VectorIndexError).to.equal(true);
    expect(new limits.RateLimiterUnavailableError('down') instanceof RateLimiterUnavailableError).to.equal(
      true,
    );
  });

  it('are not taken for one another, nor for a plain error', async () => {
    const readStore = await secondCopy<typeof ReadStoreModule>('../src/readStore/readStore.js');
    expect(new readStore.ReadStoreUnavailableError('down') instanceof WriteConflictError).to.equal(false);
    expect(new ReadStoreUnavailableError('down') instanceof EventStoreUnavailableError).to.equal(false);
    expect(new Error('plain') instanceof ReadStoreUnavailableError).to.equal(false);
    expect(new ReadStoreUnavailableError('down') instanceof Error).to.equal(true);
    expect(new ReadStoreUnavailableError('down').message).to.equal('down');
  });

  it('carry the brands of the classes above theirs, not below', () => {
    class Outage extends BrandedError {}
    class DiskFull extends Outage {}
    expect(new DiskFull('full') instanceof Outage).to.equal(true);
    expect(new DiskFull('full') instanceof DiskFull).to.equal(true);
    expect(new Outage('down') instanceof DiskFull).to.equal(false);
    expect(new Outage('down', { cause: 'x' }).cause).to.equal('x');
  });
});
