import { taskCompleted } from '../support/taskCompleted.js';
import { expect } from 'chai';
import { createLocalBus } from '../../src/bus/localBus.js';
import { taskAggregate, type TaskCommands } from '../../src/commands/aggregates.js';
import { createCommandService } from '../../src/commands/commandService.js';
import { createMemoryEventStore } from '../../src/eventStore/memoryEventStore.js';
import { silentLogger } from '../../src/log.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';
import { createJobRegistry, enqueueTask, type JobType } from '../../src/workers/jobs.js';
import { createTaskWorker } from '../../src/workers/taskWorker.js';
import { startCpuLoad } from '../support/cpuLoad.js';
import { sleep } from '../support/eventually.js';
import { createTask } from '../../src/commands/newTask.js';

describe('task worker: an attempt is alive from the moment its job is taken', function () {
  this.timeout(60_000);

  it('is not superseded when starting the attempt takes longer than the claim timeout, under CPU load', async () => {
    const claimTimeoutMs = 1_000;
    const eventStore = createMemoryEventStore();
    const leases = createSqliteReadStore({ path: ':memory:' });
    const bus = createLocalBus();
    const real = createCommandService(taskAggregate, { eventStore, clock: () => new Date() });
    let begun = 0;
    // A worker whose first step is slow (a loaded machine, a slow event store): three claim timeouts.
    const tasks: TaskCommands = {
      ...real,
      async execute(type, data, caller) {
        if (type === 'BeginAttempt') {
          begun += 1;
          await sleep(3 * claimTimeoutMs);
        }
        return real.execute(type, data, caller);
      },
    };
    const runs: number[] = [];
    const job: JobType = {
      name: 'quick',
      maxAttempts: 3,
      async run({ attempt }) {
        runs.push(attempt);
        return { done: true };
      },
    };
    const workers = ['w1', 'w2'].map((workerId) =>
      createTaskWorker({
        bus,
        tasks,
        jobs: createJobRegistry([job]),
        leases,
        workerId,
        log: silentLogger,
        heartbeatMs: 100,
        claimTimeoutMs,
      }),
    );
    const load = startCpuLoad(2);
    try {
      workers.forEach((worker) => worker.start());
      const { taskId } = await createTask(real, 'quick', {}, { actorId: 'test', correlationId: 'c' });
      await enqueueTask(bus, `created-${taskId}`, { taskId, jobType: 'quick' });
      const events = await taskCompleted(eventStore, taskId, 30_000);
      expect(events.map((event) => event.type)).to.deep.equal([
        'TaskCreated',
        'TaskStarted',
        'TaskCompleted',
      ]);
      expect(runs).to.deep.equal([1]);
      // The job was never delivered again: its delivery was renewed while the attempt was starting.
      expect(begun).to.equal(1);
    } finally {
      load.stop();
      await Promise.all(workers.map((worker) => worker.stop()));
      await bus.close();
      await leases.close();
    }
  });
});
