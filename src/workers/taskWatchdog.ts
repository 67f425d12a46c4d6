import type { Bus } from '../bus/bus.js';
import { deadLetterSubject } from '../bus/bus.js';
import type { Caller, Clock } from '../commands/context.js';
import type { TaskCommands } from '../commands/aggregates.js';
import type { TaskFailureReason } from '../domain/task/events.js';
import type { Logger } from '../log.js';
import type { ReadModels } from '../projections/readModels.js';
import type { TaskView } from '../projections/tasksProjection.js';
import { TASKS } from '../projections/tasksProjection.js';
import type { ReadStore } from '../readStore/readStore.js';
import type { JobRegistry } from './jobs.js';
import { enqueueTask, taskAttemptLease, taskQueue } from './jobs.js';
import { sweepLoop } from './sweepLoop.js';
import { isServiceUnavailable } from '../unavailable.js';

export interface TaskWatchdogOptions {
  readModels: ReadModels;
  tasks: TaskCommands;
  bus: Bus;
  jobs: JobRegistry;
  /** The attempts' liveness leases (see the task worker). */
  leases: Pick<ReadStore, 'acquireLease' | 'releaseLease' | 'readLease'>;
  clock: Clock;
  log: Logger;
  /**
   * A running task with no recorded step for this long is looked at; it is failed only if no live
   * worker holds its lease (its worker is gone, and bus redelivery did not bring it back).
   */
  stallTimeoutMs?: number;
  /**
   * A pending task waiting this long has its job enqueued again, in case the job was lost (a bus
   * that lost its newest messages in an OS crash); again after 4×, 16×… as long, never more.
   */
  redispatchAfterMs?: number;
  intervalMs?: number;
}

const WATCHDOG: Caller = { actorId: 'system:watchdog', correlationId: 'watchdog' };
const WATCHDOG_HOLDER = 'system:watchdog';

/**
 * Which re-dispatch of a pending task is due after waiting `waitedMs`: 0 after `afterMs`, 1 after
 * 4×, 2 after 16×… — so a long backlog gets a few extra jobs per task, not one per sweep. Null
 * before the first is due.
 */
function redispatchRound(waitedMs: number, afterMs: number): number | null {
  if (waitedMs < afterMs) return null;
  return Math.floor(Math.log(waitedMs / afterMs) / Math.log(4));
}

/**
 * The last line of defence against tasks stuck in `running` or `pending`: redelivery by the bus
 * resumes most interrupted tasks; the watchdog fails those whose worker is proven gone (no live
 * lease) for longer than redelivery could explain, those whose job was dead-lettered by the bus,
 * and pending tasks of job types no worker here knows. Pending tasks of known types that wait too
 * long get their job enqueued again, a few times at growing intervals: harmless, since a worker
 * acknowledges a job for a task that is finished or running elsewhere.
 */
export function createTaskWatchdog(options: TaskWatchdogOptions) {
  const { readModels, tasks, bus, jobs, leases, clock, log } = options;
  const stallTimeoutMs = options.stallTimeoutMs ?? 5 * 60_000;
  const intervalMs = options.intervalMs ?? 15_000;
  const redispatchAfterMs = options.redispatchAfterMs ?? 60_000;
  const unsubscribes: Array<() => void> = [];

  async function failTask(
    task: Pick<TaskView, 'id'>,
    reason: Exclude<TaskFailureReason, 'job_error'>,
    error: string,
  ) {
    try {
      const outcome = await tasks.execute(
        'FailTask',
        { taskId: task.id, attempt: null, reason, error },
        WATCHDOG,
      );
      if (outcome.appended.length > 0) log.warn({ taskId: task.id, reason, error }, 'watchdog failed a task');
    } catch (failure) {
      if (isServiceUnavailable(failure))
        log.warn(
          { err: failure, taskId: task.id },
          'watchdog could not fail a task now; the next sweep will',
        );
      else log.error({ err: failure, taskId: task.id }, 'watchdog could not fail a task');
    }
  }

  async function sweep(): Promise<void> {
    const now = clock().getTime();
    const cutoff = new Date(now - stallTimeoutMs).toISOString();
    const stalled = await readModels.find<TaskView>(TASKS, {
      filter: { status: 'running', lastActivityAt: { $lt: cutoff } },
      limit: 100,
    });
    for (const task of stalled) {
      // Taking the lease proves nobody holds it: the attempt's worker is gone.
      const lease = taskAttemptLease(task.id);
      if (!(await leases.acquireLease(lease, WATCHDOG_HOLDER, 1_000))) continue;
      try {
        const seconds = Math.round((now - Date.parse(task.lastActivityAt)) / 1000);
        await failTask(
          task,
          'worker_lost',
          `no worker holds attempt ${task.attempt}, and nothing was recorded for ${seconds} s`,
        );
      } finally {
        await leases.releaseLease(lease, WATCHDOG_HOLDER);
      }
    }
    // Only after the stall timeout too: during a rolling deploy a newer worker may be about to start.
    const pending = await readModels.find<TaskView>(TASKS, {
      filter: { status: 'pending', createdAt: { $lt: cutoff } },
      limit: 500,
    });
    for (const task of pending.filter((candidate) => !jobs.has(candidate.jobType))) {
      await failTask(task, 'unknown_job_type', `no worker knows the job type '${task.jobType}'`);
    }
    const waitedSince = new Date(now - redispatchAfterMs).toISOString();
    const waiting = await readModels.find<TaskView>(TASKS, {
      filter: { status: 'pending', createdAt: { $lt: waitedSince } },
      limit: 500,
    });
    for (const task of waiting.filter((candidate) => jobs.has(candidate.jobType))) {
      const round = redispatchRound(now - Date.parse(task.createdAt), redispatchAfterMs);
      if (round === null) continue;
      // Keyed by round: the bus stores each round's job once, however many sweeps see the task.
      if (
        await enqueueTask(bus, `${task.id}:redispatch:${round}`, { taskId: task.id, jobType: task.jobType })
      )
        log.info(
          { taskId: task.id, waitedSince: task.createdAt, round },
          'watchdog re-dispatched a pending task',
        );
    }
  }

  const loop = sweepLoop({ sweep, intervalMs, log, name: 'task watchdog' });
  return {
    start(): void {
      for (const job of jobs.all()) {
        unsubscribes.push(
          bus.subscribe(deadLetterSubject(taskQueue(job.name)), (message) => {
            // The dead letter's id is the job's (the id of the event that enqueued it, or a
            // re-dispatch key); the task it was for is in the job's payload.
            const job = message.payload['payload'] as Record<string, unknown> | undefined;
            const taskId = String(job?.['taskId'] ?? message.payload['id']);
            const deliveries = Number(message.payload['deliveries']);
            void failTask(
              { id: taskId },
              'attempts_exhausted',
              `the job was delivered ${deliveries} times without finishing`,
            );
          }),
        );
      }
      loop.start();
    },
    sweep,
    stop(): void {
      loop.stop();
      unsubscribes.splice(0).forEach((unsubscribe) => unsubscribe());
    },
  };
}
