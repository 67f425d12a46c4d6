import { expect } from 'chai';
import { EventStoreUnavailableError, type RecordedEvent } from '../../src/eventStore/eventStore.js';
import { ReadStoreUnavailableError } from '../../src/readStore/readStore.js';
import type { JobType } from '../../src/workers/jobs.js';
import { eventually } from '../support/eventually.js';
import { taskCompleted } from '../support/taskCompleted.js';
import { flakyEngine, taskWorkerFixture } from '../support/taskWorkerFixture.js';

const postgresDown = () => new EventStoreUnavailableError('PostgreSQL at db:5432: connect ECONNREFUSED');
const mongoDown = () => new ReadStoreUnavailableError('MongoDB at mongo:27017: connection refused');

/** The first attempt yielded to the outage, and the one resuming the task finished it. */
function expectOneYield(events: RecordedEvent[]): void {
  expect(events.map((event) => event.type)).to.deep.equal([
    'TaskCreated',
    'TaskStarted',
    'TaskYielded',
    'TaskResumed',
    'TaskCompleted',
  ]);
  expect(events[3]!.data['reason']).to.equal('attempt 1 yielded to an engine outage');
}

describe('task worker: an engine outage during an attempt', function () {
  this.timeout(30_000);

  it('does not fail the task: the attempt yields and the next one finishes it', async () => {
    const job: JobType = {
      name: 'flaky-store',
      // One attempt allowed: only because the outage's attempt does not count can the task finish.
      maxAttempts: 1,
      async run({ attempt }) {
        if (attempt === 1) throw postgresDown();
        return { attempt };
      },
    };
    const { events } = await taskWorkerFixture(job).completeOne();
    // The outage is recorded as a yield, so the attempt it cost does not count against the job's.
    expectOneYield(events);
    expect(events.at(-1)!.data['result']).to.deep.equal({ attempt: 2 });
  });

  it('waits out an outage longer than the bus would redeliver for, in the same delivery', async () => {
    const deliveries: number[] = [];
    const job: JobType = {
      name: 'long-outage',
      // The bus dead-letters after maxAttempts + 2 = 3 deliveries; the outage lasts 8 attempts.
      maxAttempts: 1,
      async run({ attempt }) {
        if (attempt <= 8) throw mongoDown();
        return { attempt };
      },
    };
    const { events, deadLetters } = await taskWorkerFixture(job, {
      leases: (real) => ({
        ...real,
        acquireLease: async (name, holder, ttlMs) => {
          deliveries.push(Number(holder.split(' ')[2]));
          return real.acquireLease(name, holder, ttlMs);
        },
      }),
    }).completeOne();
    expect(events.filter((event) => event.type === 'TaskYielded')).to.have.length(8);
    expect(events.at(-1)!.data['result']).to.deep.equal({ attempt: 9 });
    // Every attempt ran in the first delivery (the heartbeat renews the lease with the same holder).
    expect(new Set(deliveries)).to.deep.equal(new Set([1]));
    expect(deadLetters).to.deep.equal([]);
  });

  it('waits for the lease store when it is down as the job is taken, using no attempt', async () => {
    const mongo = flakyEngine(mongoDown);
    mongo.goDown(6);
    const job: JobType = { name: 'lease-store-down', maxAttempts: 1, run: async () => ({ ran: true }) };
    const { events, deadLetters } = await taskWorkerFixture(job, {
      leases: (real) => ({
        ...real,
        acquireLease: (name, holder, ttlMs) => mongo.call(() => real.acquireLease(name, holder, ttlMs)),
      }),
    }).completeOne();
    expect(events.map((event) => event.type)).to.deep.equal(['TaskCreated', 'TaskStarted', 'TaskCompleted']);
    expect(mongo.refusalsLeft).to.equal(0);
    expect(deadLetters).to.deep.equal([]);
  });

  it('writes the yield the event store could not take before resuming, so the outage costs no attempt', async () => {
    const postgres = flakyEngine(postgresDown);
    const job: JobType = {
      name: 'event-store-down',
      maxAttempts: 1,
      async run({ attempt }) {
        if (attempt > 1) return { attempt };
        // The event store goes down with the job's first attempt and stays down for several tries.
        postgres.goDown(5);
        throw postgresDown();
      },
    };
    const { events } = await taskWorkerFixture(job, {
      tasks: (real) => ({
        ...real,
        execute: (type, data, caller) => postgres.call(() => real.execute(type, data, caller)),
      }),
    }).completeOne();
    expectOneYield(events);
  });

  it('hands the job back to the bus when the worker stops during an outage, and another worker finishes it', async () => {
    let storeDown = true;
    let tries = 0;
    const job: JobType = {
      name: 'stop-in-outage',
      maxAttempts: 1,
      async run({ attempt }) {
        tries += 1;
        if (storeDown) throw mongoDown();
        return { attempt };
      },
    };
    const fixture = taskWorkerFixture(job);
    const first = fixture.newWorker('w1');
    first.start();
    const second = fixture.newWorker('w2');
    try {
      const taskId = await fixture.submit();
      await eventually(() => tries >= 3 || undefined, 20_000);
      // The outage has not ended: stopping must not wait for it.
      await first.stop();
      storeDown = false;
      second.start();
      const events = await taskCompleted(fixture.eventStore, taskId, 20_000);
      expect(events.at(-1)!.data['result']).to.have.property('attempt').that.is.above(3);
      expect(events.some((event) => event.type === 'TaskFailed')).to.equal(false);
    } finally {
      await first.stop();
      await second.stop();
      await fixture.close();
    }
  });
});
