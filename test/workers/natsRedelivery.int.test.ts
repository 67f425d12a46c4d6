import { taskCompleted } from '../support/taskCompleted.js';
import { expect } from 'chai';
import type { Bus } from '../../src/bus/bus.js';
import { createNatsBus } from '../../src/bus/natsBus.js';
import { taskAggregate } from '../../src/commands/aggregates.js';
import { createCommandService } from '../../src/commands/commandService.js';
import { createMemoryEventStore } from '../../src/eventStore/memoryEventStore.js';
import { silentLogger } from '../../src/log.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';
import type { JobType } from '../../src/workers/jobs.js';
import { createJobRegistry, enqueueTask } from '../../src/workers/jobs.js';
import { createTaskWorker } from '../../src/workers/taskWorker.js';
import { eventually, sleep } from '../support/eventually.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { createTask } from '../../src/commands/newTask.js';

/**
 * The failure this guards against: with JetStream's two-minute duplicate window, a job enqueued
 * again after the window (by the watchdog, or a reactor repeating itself after a crash) was
 * delivered again and `BeginAttempt` superseded the healthy attempt running it — with a backlog
 * older than the window, a task could be restarted over and over and end `attempts_exhausted`.
 */
describe('NATS redelivery never supersedes a healthy task', function () {
  this.timeout(60_000);
  let server: NatsServerHandle | null = null;
  const open: Bus[] = [];

  before(async function () {
    server = await startNatsServer();
    if (!server) this.skip();
  });
  after(async () => {
    await Promise.all(open.map((bus) => bus.close()));
    await server?.dispose();
  });

  it('with a short duplicate window and a backlog longer than it', async () => {
    const windowMs = 300;
    const prefix = `redelivery_${process.pid}_${Date.now()}`;
    const busA = createNatsBus({ url: server!.url, prefix, dedupeWindowMs: windowMs });
    const busB = createNatsBus({ url: server!.url, prefix, dedupeWindowMs: windowMs });
    open.push(busA, busB);
    const eventStore = createMemoryEventStore();
    const leases = createSqliteReadStore({ path: ':memory:' });
    const tasks = createCommandService(taskAggregate, { eventStore, clock: () => new Date() });
    const caller = { actorId: 'test', correlationId: 'c' };

    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const runs: string[] = [];
    // A long job that reports nothing until it is told to finish: only its lease shows it is alive.
    const longJob: JobType = {
      name: 'long',
      maxAttempts: 2,
      async run({ taskId, attempt }) {
        runs.push(`${taskId}#${attempt}`);
        await finished;
        return { done: true };
      },
    };
    const workers = ['a', 'b'].map((id, index) =>
      createTaskWorker({
        bus: index === 0 ? busA : busB,
        tasks,
        jobs: createJobRegistry([longJob]),
        leases,
        workerId: id,
        log: silentLogger,
        heartbeatMs: 100,
        claimTimeoutMs: 1_000,
      }),
    );
    workers.forEach((worker) => worker.start());

    const { taskId } = await createTask(tasks, 'long', {}, caller);
    const key = `created-${taskId}`;
    expect(await enqueueTask(busA, key, { taskId, jobType: 'long' })).to.equal(true);
    await eventually(() => (runs.length === 1 ? true : undefined), 10_000);

    // The backlog outlives the duplicate window…
    await sleep(windowMs * 3);
    // …yet the same key is still refused: de-duplication does not expire with the window.
    expect(await enqueueTask(busB, key, { taskId, jobType: 'long' })).to.equal(false);
    // Copies under other keys (re-dispatches) reach the other worker while the attempt runs.
    for (let round = 0; round < 3; round += 1) {
      expect(await enqueueTask(busB, `${taskId}:redispatch:${round}`, { taskId, jobType: 'long' })).to.equal(
        true,
      );
    }
    await sleep(windowMs * 2);
    expect(runs).to.deep.equal([`${taskId}#1`]);
    finish();

    const events = await taskCompleted(eventStore, taskId, 10_000);
    expect(events.map((event) => event.type)).to.deep.equal(['TaskCreated', 'TaskStarted', 'TaskCompleted']);
    expect(runs).to.deep.equal([`${taskId}#1`]);
    await Promise.all(workers.map((worker) => worker.stop()));
    await leases.close();
  });
});
