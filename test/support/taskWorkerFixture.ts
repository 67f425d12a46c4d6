import type { DeadLetter } from '../../src/bus/bus.js';
import { createLocalBus } from '../../src/bus/localBus.js';
import { taskAggregate, type TaskCommands } from '../../src/commands/aggregates.js';
import { createCommandService } from '../../src/commands/commandService.js';
import { createTask } from '../../src/commands/newTask.js';
import type { RecordedEvent } from '../../src/eventStore/eventStore.js';
import { createMemoryEventStore } from '../../src/eventStore/memoryEventStore.js';
import { silentLogger } from '../../src/log.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';
import { createJobRegistry, enqueueTask, taskQueue, type JobType } from '../../src/workers/jobs.js';
import { createTaskWorker, type TaskWorkerOptions } from '../../src/workers/taskWorker.js';
import { taskCompleted } from './taskCompleted.js';

type Leases = Pick<ReadStore, 'acquireLease' | 'releaseLease' | 'readLease'>;

export interface TaskWorkerFixtureOptions {
  /** Wrappers around the real task commands and lease store (a slow or failing engine). */
  tasks?: (real: TaskCommands) => TaskCommands;
  leases?: (real: Leases) => Leases;
  /** Settings of every worker made (the heartbeat is 100 ms, outage pauses 5 ms doubling to 20 ms). */
  worker?: Partial<Pick<TaskWorkerOptions, 'claimTimeoutMs' | 'heartbeatMs'>>;
}

/** Task workers of one job type on an embedded bus, an in-memory event log and a SQLite lease store. */
export function taskWorkerFixture(job: JobType, options: TaskWorkerFixtureOptions = {}) {
  const eventStore = createMemoryEventStore();
  const readStore = createSqliteReadStore({ path: ':memory:' });
  const bus = createLocalBus();
  const realTasks = createCommandService(taskAggregate, { eventStore, clock: () => new Date() });
  const tasks = options.tasks?.(realTasks) ?? realTasks;
  const leases = options.leases?.(readStore) ?? readStore;
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
      ...options.worker,
    });
  async function submit(): Promise<string> {
    const { taskId } = await createTask(realTasks, job.name, {}, { actorId: 'test', correlationId: 'c' });
    await enqueueTask(bus, `created-${taskId}`, { taskId, jobType: job.name });
    return taskId;
  }
  async function close(): Promise<void> {
    await bus.close();
    await readStore.close();
  }
  return {
    eventStore,
    bus,
    newWorker,
    submit,
    close,
    /**
     * Runs one task on one worker to completion, then stops the worker and closes: the task's events,
     * and the job queue's dead letters.
     */
    async completeOne(timeoutMs = 20_000): Promise<{ events: RecordedEvent[]; deadLetters: DeadLetter[] }> {
      const worker = newWorker('w1');
      worker.start();
      try {
        const events = await taskCompleted(eventStore, await submit(), timeoutMs);
        return { events, deadLetters: await bus.deadLetters(taskQueue(job.name)) };
      } finally {
        await worker.stop();
        await close();
      }
    },
  };
}

/** An engine that refuses its next `times` calls with `error` (after `goDown`), then answers again. */
export function flakyEngine(error: () => Error) {
  let refusals = 0;
  return {
    goDown(times: number): void {
      refusals = times;
    },
    get refusalsLeft(): number {
      return refusals;
    },
    call<T>(operation: () => Promise<T>): Promise<T> {
      if (refusals === 0) return operation();
      refusals -= 1;
      return Promise.reject(error());
    },
  };
}
