import { taskCompleted } from '../support/taskCompleted.js';
import { expect } from 'chai';
import { createNatsBus } from '../../src/bus/natsBus.js';
import { taskAggregate } from '../../src/commands/aggregates.js';
import { createCommandService } from '../../src/commands/commandService.js';
import { createMemoryEventStore } from '../../src/eventStore/memoryEventStore.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';
import { createJobRegistry, enqueueTask, type JobType } from '../../src/workers/jobs.js';
import { createTaskWorker } from '../../src/workers/taskWorker.js';
import { capturedLog } from '../support/capturedLog.js';
import { eventually } from '../support/eventually.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { createTask } from '../../src/commands/newTask.js';

/**
 * The failure this guards against: a worker renewed its delivery on a timer without handling the
 * rejection the renewal gives while NATS is down, and Node ended the process on the unhandled
 * rejection — after an outage no worker was left.
 */
describe('a task worker survives a NATS outage in the middle of a task', function () {
  this.timeout(120_000);
  let server: NatsServerHandle | null = null;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };

  before(async function () {
    server = await startNatsServer({ own: true });
    if (!server?.controllable) {
      console.log('      skipped: no nats-server this test can stop and start (nats-server not on PATH)');
      this.skip();
    }
    process.on('unhandledRejection', onUnhandled);
  });
  after(async () => {
    process.off('unhandledRejection', onUnhandled);
    await server?.dispose();
  });

  it('renews nothing while NATS is away, rejects nothing unhandled, and finishes the task once it is back', async () => {
    const { log, lines } = capturedLog('warn');
    const bus = createNatsBus({ url: server!.url, prefix: `outage_${process.pid}_${Date.now()}`, log });
    const eventStore = createMemoryEventStore();
    const leases = createSqliteReadStore({ path: ':memory:' });
    const tasks = createCommandService(taskAggregate, { eventStore, clock: () => new Date() });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const job: JobType = {
      name: 'waits',
      maxAttempts: 3,
      async run() {
        started += 1;
        await released;
        return { done: true };
      },
    };
    const worker = createTaskWorker({
      bus,
      tasks,
      jobs: createJobRegistry([job]),
      leases,
      workerId: 'w1',
      log,
      heartbeatMs: 100,
      claimTimeoutMs: 30_000,
    });
    worker.start();
    try {
      const { taskId } = await createTask(tasks, 'waits', {}, { actorId: 'test', correlationId: 'c' });
      await enqueueTask(bus, `created-${taskId}`, { taskId, jobType: 'waits' });
      await eventually(() => (started === 1 ? true : undefined), 20_000);

      await server!.stop();
      // The heartbeat keeps trying while the server is away, and says so once.
      await eventually(
        () => (lines.some((line) => line.msg === 'could not renew the attempt; retrying') ? true : undefined),
        20_000,
      );
      await server!.restart();
      release();
      const events = await taskCompleted(eventStore, taskId, 60_000);
      expect(events.map((event) => event.type)).to.deep.equal([
        'TaskCreated',
        'TaskStarted',
        'TaskCompleted',
      ]);
      expect(unhandled).to.deep.equal([]);
    } finally {
      await worker.stop();
      await bus.close();
      await leases.close();
    }
  });
});
