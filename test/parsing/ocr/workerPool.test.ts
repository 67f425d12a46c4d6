import { expect } from 'chai';
import { ParseError } from '../../../src/parsing/errors.js';
import { createPool } from '../../../src/parsing/ocr/workerPool.js';
import { sleep } from '../../support/eventually.js';
import { expectParseError } from '../expectParseError.js';

interface Resource {
  id: number;
  destroyed: boolean;
}

/** A pool of plain objects whose creation takes `createMs` and may be made to fail. */
function resourcePool(options: { size: number; idleMs?: number; createMs?: number; failCreates?: number }) {
  let created = 0;
  let failures = options.failCreates ?? 0;
  const all: Resource[] = [];
  const pool = createPool<Resource>({
    size: options.size,
    idleMs: options.idleMs ?? 10_000,
    create: async () => {
      await sleep(options.createMs ?? 0);
      if (failures > 0) {
        failures -= 1;
        throw new Error('could not start');
      }
      created += 1;
      const resource = { id: created, destroyed: false };
      all.push(resource);
      return resource;
    },
    destroy: async (resource) => {
      resource.destroyed = true;
    },
    closedError: () => new ParseError('aborted', 'closed'),
  });
  return { pool, all };
}

const live = (): AbortSignal => new AbortController().signal;

describe('worker pool', () => {
  it('reuses a released resource and serves waiters first come, first served', async () => {
    const { pool, all } = resourcePool({ size: 1 });
    const first = await pool.acquire(live());
    const order: number[] = [];
    const second = pool.acquire(live()).then((lease) => (order.push(2), lease));
    const third = pool.acquire(live()).then((lease) => (order.push(3), lease));
    expect(pool.stats()).to.include({ size: 1, busy: 1, waiting: 2 });
    first.release();
    (await second).release();
    (await third).release();
    expect(order).to.deep.equal([2, 3]);
    expect(all).to.have.length(1);
    expect(pool.stats()).to.include({ size: 1, idle: 1, busy: 0, waiting: 0 });
    await pool.close();
  });

  it('hands a resource started for a waiter that gave up to the next waiter', async () => {
    const { pool, all } = resourcePool({ size: 1, createMs: 50 });
    const controller = new AbortController();
    const gaveUp = expectParseError(pool.acquire(controller.signal), 'aborted');
    const next = pool.acquire(live());
    await sleep(10);
    controller.abort();
    await gaveUp;
    const lease = await next;
    expect(lease.resource.id).to.equal(1);
    expect(all).to.have.length(1);
    await pool.close();
  });

  it('replaces a discarded resource on demand and destroys it', async () => {
    const { pool, all } = resourcePool({ size: 1 });
    const lease = await pool.acquire(live());
    lease.discard();
    expect(all[0]?.destroyed).to.equal(true);
    expect(pool.stats().size).to.equal(0);
    expect((await pool.acquire(live())).resource.id).to.equal(2);
    await pool.close();
  });

  it('rejects the waiter whose resource failed to start, and starts one for the next', async () => {
    const { pool } = resourcePool({ size: 1, failCreates: 1 });
    const failed = pool.acquire(live());
    const next = pool.acquire(live());
    let message = '';
    await failed.catch((error: unknown) => {
      message = error instanceof Error ? error.message : String(error);
    });
    expect(message).to.equal('could not start');
    expect((await next).resource.id).to.equal(1);
    await pool.close();
  });

  it('destroys idle resources after idleMs', async () => {
    const { pool, all } = resourcePool({ size: 2, idleMs: 30 });
    const [a, b] = await Promise.all([pool.acquire(live()), pool.acquire(live())]);
    a?.release();
    b?.release();
    expect(pool.stats().idle).to.equal(2);
    await sleep(80);
    expect(pool.stats().size).to.equal(0);
    expect(all.every((resource) => resource.destroyed)).to.equal(true);
    await pool.close();
  });

  it('on close rejects queued and starting waiters, destroys everything, and refuses new work', async () => {
    const { pool, all } = resourcePool({ size: 1, createMs: 30 });
    const starting = expectParseError(pool.acquire(live()), 'aborted');
    const queued = expectParseError(pool.acquire(live()), 'aborted');
    await sleep(5);
    await pool.close();
    await Promise.all([starting, queued]);
    expect(all.map((resource) => resource.destroyed)).to.deep.equal([true]);
    expect(pool.stats().size).to.equal(0);
    await expectParseError(pool.acquire(live()), 'aborted');
  });
});
