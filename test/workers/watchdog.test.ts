import { expect } from 'chai';
import { createLocalBus } from '../../src/bus/localBus.js';
import { taskAggregate } from '../../src/commands/aggregates.js';
import { createCommandService } from '../../src/commands/commandService.js';
import { createMemoryEventStore } from '../../src/eventStore/memoryEventStore.js';
import { createProjectionStack } from '../../src/projections/stack.js';
import { TASKS, tasksProjection, type TaskView } from '../../src/projections/tasksProjection.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';
import { createJobRegistry } from '../../src/workers/jobs.js';
import { createTaskWorker } from '../../src/workers/taskWorker.js';
import { deadLetterSubject } from '../../src/bus/bus.js';
import { taskAttemptLease, taskQueue } from '../../src/workers/jobs.js';
import { createTaskWatchdog } from '../../src/workers/taskWatchdog.js';
import { silentLogger } from '../../src/log.js';
import { eventually, sleep, startTestApp, type TestApp } from '../support/testApp.js';
import { stepsJob } from '../support/testJobs.js';
import { createTask } from '../../src/commands/newTask.js';

describe('task watchdog', () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await startTestApp({ jobs: [stepsJob] });
  });
  afterEach(async () => app.stop());

  const caller = { actorId: 'test', correlationId: 'c' };
  const watchdogAt = (now: Date) =>
    createTaskWatchdog({
      readModels: app.runtime.readModels,
      tasks: app.runtime.tasks,
      bus: app.runtime.bus,
      jobs: app.runtime.jobs,
      leases: app.runtime.readStore,
      clock: () => now,
      log: silentLogger,
      stallTimeoutMs: 60_000,
    });
  /** A sweep's commands are appended when it returns; read the tasks only once they are projected. */
  const projected = async (): Promise<void> => {
    const head = await app.runtime.eventStore.headPosition();
    expect(await app.runtime.projections.waitFor(head)).to.equal(true);
  };

  it('fails a running task whose worker fell silent beyond the stall timeout, saying so', async () => {
    // A task some worker began and then went silent: its last sign of life is its start.
    const { taskId } = await createTask(app.runtime.tasks, 'ghost-job', {}, caller);
    const begun = await app.runtime.tasks.execute(
      'BeginAttempt',
      { taskId, workerId: 'gone', maxAttempts: 3, resumable: true },
      caller,
    );
    await app.runtime.projections.waitFor(begun.position);
    await watchdogAt(new Date(Date.now() + 30_000)).sweep();
    await projected();
    expect((await app.http.get(`/api/v1/tasks/${taskId}`)).body.status).to.equal('running');
    await watchdogAt(new Date(Date.now() + 90_000)).sweep();
    const outcome = await eventually(async () => {
      const task = (await app.http.get(`/api/v1/tasks/${taskId}`)).body;
      return task.status === 'failed' ? task : undefined;
    });
    expect(outcome.error).to.match(/^no worker holds attempt 1, and nothing was recorded for 9\d s$/);
  });

  it('leaves a silent running task alone while its worker holds the attempt lease', async () => {
    const { taskId } = await createTask(app.runtime.tasks, 'ghost-job', {}, caller);
    const begun = await app.runtime.tasks.execute(
      'BeginAttempt',
      { taskId, workerId: 'alive', maxAttempts: 3, resumable: true },
      caller,
    );
    await app.runtime.projections.waitFor(begun.position);
    expect(
      await app.runtime.readStore.acquireLease(taskAttemptLease(taskId), 'alive/job/1', 60_000),
    ).to.not.equal(null);
    await watchdogAt(new Date(Date.now() + 3_600_000)).sweep();
    await projected();
    expect((await app.http.get(`/api/v1/tasks/${taskId}`)).body.status).to.equal('running');
    await app.runtime.readStore.releaseLease(taskAttemptLease(taskId), 'alive/job/1');
    await watchdogAt(new Date(Date.now() + 3_600_000)).sweep();
    await eventually(async () =>
      (await app.http.get(`/api/v1/tasks/${taskId}`)).body.status === 'failed' ? true : undefined,
    );
  });

  it('fails a task of a job type no worker knows once it has waited past the stall timeout', async () => {
    const { taskId, position } = await createTask(app.runtime.tasks, 'nobody-runs-this', {}, caller);
    await app.runtime.projections.waitFor(position);
    await watchdogAt(new Date(Date.now() + 10_000)).sweep();
    await projected();
    expect((await app.http.get(`/api/v1/tasks/${taskId}`)).body.status).to.equal('pending');
    await watchdogAt(new Date(Date.now() + 61_000)).sweep();
    const task = await eventually(async () => {
      const body = (await app.http.get(`/api/v1/tasks/${taskId}`)).body;
      return body.status === 'failed' ? body : undefined;
    });
    expect(task.error).to.equal("no worker knows the job type 'nobody-runs-this'");
  });

  it('fails a task whose job the bus dead-lettered', async () => {
    const { taskId, position } = await createTask(app.runtime.tasks, 'ghost-job', {}, caller);
    await app.runtime.projections.waitFor(position);
    const watchdog = watchdogAt(new Date());
    watchdog.start();
    app.runtime.bus.publish(deadLetterSubject(taskQueue('steps')), {
      queue: taskQueue('steps'),
      // The job's id is the event that enqueued it, not the task.
      id: 'c0ffee00-0000-4000-8000-000000000001',
      payload: { taskId },
      deliveries: 5,
      reason: 'max_deliveries',
      detail: null,
      at: new Date().toISOString(),
    });
    const task = await eventually(async () => {
      const body = (await app.http.get(`/api/v1/tasks/${taskId}`)).body;
      return body.status === 'failed' ? body : undefined;
    });
    expect(task.error).to.equal('the job was delivered 5 times without finishing');
    watchdog.stop();
  });

  it('re-dispatches a pending task whose job never reached the queue, which then runs', async () => {
    // Real components, but no dispatcher: TaskCreated is stored and its job never reaches the queue.
    const eventStore = createMemoryEventStore();
    const readStore = createSqliteReadStore({ path: ':memory:' });
    const bus = createLocalBus();
    const { readModels, engine } = createProjectionStack({
      eventStore,
      readStore,
      projections: [tasksProjection],
      owner: 'test',
      log: silentLogger,
    });
    await engine.start();
    const tasks = createCommandService(taskAggregate, { eventStore, clock: () => new Date() });
    const jobs = createJobRegistry([stepsJob]);
    const worker = createTaskWorker({
      bus,
      tasks,
      jobs,
      leases: readStore,
      workerId: 'w',
      log: silentLogger,
    });
    worker.start();
    const { taskId, position } = await createTask(tasks, 'steps', { steps: 1, stepMs: 1 }, caller);
    await engine.waitFor(position);
    await sleep(200);
    expect((await readModels.get<TaskView>(TASKS, taskId))!.status).to.equal('pending');

    const watchdog = createTaskWatchdog({
      readModels,
      tasks,
      bus,
      jobs,
      leases: readStore,
      log: silentLogger,
      clock: () => new Date(Date.now() + 61_000),
    });
    await watchdog.sweep();
    await eventually(async () =>
      (await readModels.get<TaskView>(TASKS, taskId))!.status === 'completed' ? true : undefined,
    );
    await worker.stop();
    await engine.stop();
    await bus.close();
  });

  it('leaves finished tasks alone', async () => {
    const { taskId } = await createTask(app.runtime.tasks, 'steps', { steps: 1, stepMs: 1 }, caller);
    await eventually(async () =>
      (await app.http.get(`/api/v1/tasks/${taskId}`)).body.status === 'completed' ? true : undefined,
    );
    await watchdogAt(new Date(Date.now() + 3_600_000)).sweep();
    await projected();
    expect((await app.http.get(`/api/v1/tasks/${taskId}`)).body.status).to.equal('completed');
  });
});
