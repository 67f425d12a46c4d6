import { expect } from 'chai';
import { createLocalBus } from '../../src/bus/localBus.js';
import { taskAggregate, type TaskCommands } from '../../src/commands/aggregates.js';
import { createCommandService } from '../../src/commands/commandService.js';
import { createTask } from '../../src/commands/newTask.js';
import { EventStoreUnavailableError } from '../../src/eventStore/eventStore.js';
import { createMemoryEventStore } from '../../src/eventStore/memoryEventStore.js';
import { silentLogger } from '../../src/log.js';
import { ReadStoreUnavailableError, type ReadStore } from '../../src/readStore/readStore.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';
import { createJobRegistry, enqueueTask, taskQueue, type JobType } from '../../src/workers/jobs.js';
import { createTaskWorker } from '../../src/workers/taskWorker.js';
import { eventually } from '../support/eventually.js';
import { taskCompleted } from '../support/taskCompleted.js';

type Leases = Pick<ReadStore, 'acquireLease' | 'releaseLease' | 'readLease'>;

/** A worker on an embedded bus and stores, with the wrappers a test puts around them. */
function outageFixture(
  job: JobType,
  wrap: { tasks?: (real: TaskCommands) => TaskCommands; leases?: (real: Leases) => Leases } = {},
) {
  const eventStore = createMemoryEventStore();
  const readStore = createSqliteReadStore({ path: ':memory:' });
  const bus = createLocalBus();
  const realTasks = createCommandService(taskAggregate, { eventStore, clock: () => new Date() });
  const tasks = wrap.tasks?.(realTasks) ?? realTasks;
  const leases = wrap.leases?.(readStore) ?? readStore;
  const newWorker = (workerId: string) =>
    createTaskWorker({
      bus,
      tasks,
      jobs: createJobRegistry([job]),
      leases,
      workerId,
      log: silentLogger,
      heartbeatMs: 100,
      outageRetryMs: 5,
      outageRetryMaxMs: 20,
    });
  return {
    eventStore,
    bus,
    newWorker,
    async submit(): Promise<string> {
      const { taskId } = await createTask(realTasks, job.name, {}, { actorId: 'test', correlationId: 'c' });
      await enqueueTask(bus, `created-${taskId}`, { taskId, jobType: job.name });
      return taskId;
    },
    async close(): Promise<void> {
      await bus.close();
      await readStore.close();
    },
  };
}

describe('task worker: an engine outage during an attempt', function () {
  this.timeout(30_000);

  it('does not fail the task: the attempt yields and the next one finishes it', async () => {
    const job: JobType = {
      name: 'flaky-store',
      // One attempt allowed: only because the outage's attempt does not count can the task finish.
      maxAttempts: 1,
      async run({ attempt }) {
        if (attempt === 1)
          throw new EventStoreUnavailableError('PostgreSQL at db:5432: connect ECONNREFUSED');
        return { attempt };
      },
    };
    const fixture = outageFixture(job);
    const worker = fixture.newWorker('w1');
    worker.start();
    try {
      const taskId = await fixture.submit();
      const events = await taskCompleted(fixture.eventStore, taskId, 20_000);
      // The outage is recorded as a yield, so the attempt it cost does not count against the job's.
      expect(events.map((event) => event.type)).to.deep.equal([
        'TaskCreated',
        'TaskStarted',
        'TaskYielded',
        'TaskResumed',
        'TaskCompleted',
      ]);
      expect(events[3]!.data['reason']).to.equal('attempt 1 yielded to an engine outage');
      expect(events.at(-1)!.data['result']).to.deep.equal({ attempt: 2 });
    } finally {
      await worker.stop();
      await fixture.close();
    }
  });

  it('waits out an outage longer than the bus would redeliver for, in the same delivery', async () => {
    const deliveries: number[] = [];
    const job: JobType = {
      name: 'long-outage',
      // The bus dead-letters after maxAttempts + 2 = 3 deliveries; the outage lasts 8 attempts.
      maxAttempts: 1,
      async run({ attempt }) {
        if (attempt <= 8) throw new ReadStoreUnavailableError('MongoDB at mongo:27017: connection refused');
        return { attempt };
      },
    };
    const fixture = outageFixture(job, {
      leases: (real) => ({
        ...real,
        acquireLease: async (name, holder, ttlMs) => {
          deliveries.push(Number(holder.split(' ')[2]));
          return real.acquireLease(name, holder, ttlMs);
        },
      }),
    });
    const worker = fixture.newWorker('w1');
    worker.start();
    try {
      const taskId = await fixture.submit();
      const events = await taskCompleted(fixture.eventStore, taskId, 20_000);
      expect(events.filter((event) => event.type === 'TaskYielded')).to.have.length(8);
      expect(events.at(-1)!.data['result']).to.deep.equal({ attempt: 9 });
      // Every attempt ran in the first delivery (the heartbeat renews the lease with the same holder).
      expect(new Set(deliveries)).to.deep.equal(new Set([1]));
      expect(await fixture.bus.deadLetters(taskQueue(job.name))).to.deep.equal([]);
    } finally {
      await worker.stop();
      await fixture.close();
    }
  });

  it('waits for the lease store when it is down as the job is taken, using no attempt', async () => {
    let refusals = 6;
    const job: JobType = { name: 'lease-store-down', maxAttempts: 1, run: async () => ({ ran: true }) };
    const fixture = outageFixture(job, {
      leases: (real) => ({
        ...real,
        acquireLease: async (name, holder, ttlMs) => {
          if (refusals > 0) {
            refusals -= 1;
            throw new ReadStoreUnavailableError('MongoDB at mongo:27017: connection refused');
          }
          return real.acquireLease(name, holder, ttlMs);
        },
      }),
    });
    const worker = fixture.newWorker('w1');
    worker.start();
    try {
      const taskId = await fixture.submit();
      const events = await taskCompleted(fixture.eventStore, taskId, 20_000);
      expect(events.map((event) => event.type)).to.deep.equal([
        'TaskCreated',
        'TaskStarted',
        'TaskCompleted',
      ]);
      expect(refusals).to.equal(0);
      expect(await fixture.bus.deadLetters(taskQueue(job.name))).to.deep.equal([]);
    } finally {
      await worker.stop();
      await fixture.close();
    }
  });

  it('writes the yield the event store could not take before resuming, so the outage costs no attempt', async () => {
    // The event store goes down with the job's first attempt and stays down for several tries.
    let downFor = 0;
    const job: JobType = {
      name: 'event-store-down',
      maxAttempts: 1,
      async run({ attempt }) {
        if (attempt === 1) {
          downFor = 5;
          throw new EventStoreUnavailableError('PostgreSQL at db:5432: connect ECONNREFUSED');
        }
        return { attempt };
      },
    };
    const fixture = outageFixture(job, {
      tasks: (real) => ({
        ...real,
        async execute(type, data, caller) {
          if (downFor > 0) {
            downFor -= 1;
            throw new EventStoreUnavailableError('PostgreSQL at db:5432: connect ECONNREFUSED');
          }
          return real.execute(type, data, caller);
        },
      }),
    });
    const worker = fixture.newWorker('w1');
    worker.start();
    try {
      const taskId = await fixture.submit();
      const events = await taskCompleted(fixture.eventStore, taskId, 20_000);
      expect(events.map((event) => event.type)).to.deep.equal([
        'TaskCreated',
        'TaskStarted',
        'TaskYielded',
        'TaskResumed',
        'TaskCompleted',
      ]);
      expect(events[3]!.data['reason']).to.equal('attempt 1 yielded to an engine outage');
    } finally {
      await worker.stop();
      await fixture.close();
    }
  });

  it('hands the job back to the bus when the worker stops during an outage, and another worker finishes it', async () => {
    let storeDown = true;
    let tries = 0;
    const job: JobType = {
      name: 'stop-in-outage',
      maxAttempts: 1,
      async run({ attempt }) {
        tries += 1;
        if (storeDown) throw new ReadStoreUnavailableError('MongoDB at mongo:27017: connection refused');
        return { attempt };
      },
    };
    const fixture = outageFixture(job);
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
