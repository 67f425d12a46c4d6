import { setTimeout as sleep } from 'node:timers/promises';
import type { Bus, Consumer, Delivery } from '../bus/bus.js';
import type { Caller } from '../commands/context.js';
import type { TaskCommands } from '../commands/aggregates.js';
import { DomainError, NotFoundError } from '../domain/shared/index.js';
import type { Logger } from '../log.js';
import type { ReadStore } from '../readStore/readStore.js';
import { isServiceUnavailable } from '../unavailable.js';
import type { JobContext, JobRegistry, JobType } from './jobs.js';
import { TaskStopped, taskAttemptLease, taskCancelledSubject, taskQueue } from './jobs.js';

export interface TaskWorkerOptions {
  bus: Bus;
  tasks: TaskCommands;
  jobs: JobRegistry;
  /** Where attempts hold their liveness leases (shared by every worker process). */
  leases: Pick<ReadStore, 'acquireLease' | 'releaseLease' | 'readLease'>;
  workerId: string;
  log: Logger;
  /** How often a running attempt shows it is alive (renews its bus delivery and its liveness lease). */
  heartbeatMs?: number;
  /**
   * An attempt silent this long is presumed dead: its job is delivered again and its lease expires,
   * so another worker takes the task over (TASK_CLAIM_TIMEOUT_MS).
   */
  claimTimeoutMs?: number;
  /** The first pause after an engine outage before trying again; it doubles up to `outageRetryMaxMs`. */
  outageRetryMs?: number;
  outageRetryMaxMs?: number;
}

/** A yield the event store could not take when the outage struck: written before the next try. */
interface OwedYield {
  taskId: string;
  attempt: number;
  reason: string;
}

/** An attempt that an engine outage stopped. */
interface Interruption {
  error: Error;
  owedYield: OwedYield | null;
}

const STOP_CODES: Record<string, TaskStopped['reason']> = {
  task_cancelled: 'cancelled',
  attempt_superseded: 'superseded',
  task_not_running: 'finished',
};

/** The liveness lease holder of a delivery: the job it runs, the worker, the delivery count. */
function attemptHolder(delivery: Delivery, workerId: string): string {
  return `${encodeURIComponent(delivery.id)} ${workerId} ${delivery.deliveryCount}`;
}

function jobOfHolder(holder: string): string {
  return decodeURIComponent(holder.split(' ')[0] ?? '');
}

/** A domain error that means "this attempt must stop" becomes `TaskStopped`; anything else is kept. */
function asStop(error: unknown): unknown {
  if (error instanceof DomainError && STOP_CODES[error.code]) return new TaskStopped(STOP_CODES[error.code]!);
  return error;
}

/**
 * Consumes every registered job type's work queue and runs each task as an attempt. A delivery first
 * takes the task's liveness lease: when another live attempt holds it, the delivery is a duplicate
 * (a job enqueued again, a copy past the bus's de-duplication) and is acknowledged without touching
 * the task — a healthy attempt is never superseded. Holding the lease, it sends `BeginAttempt`
 * (which starts, resumes — the lease proves the previous attempt's worker gone — or, when it cannot
 * resume, fails the task), then runs the job with a context whose `progress` records
 * `TaskProgressed`, a heartbeat that renews the bus delivery and the lease (liveness stays out of
 * the event log, so a long task does not grow its stream), and an abort signal raised by
 * cancellation. The outcome is `TaskCompleted` or `TaskFailed`; a job is acknowledged only once its
 * outcome is stored, so a crash anywhere means redelivery and a resumed (or failed) task, never one
 * stuck in `running`. An engine outage is waited out by the delivery that met it (see `runDelivery`).
 */
export function createTaskWorker(options: TaskWorkerOptions) {
  const { bus, tasks, jobs, leases, workerId, log } = options;
  const heartbeatMs = options.heartbeatMs ?? 10_000;
  const ackWaitMs = options.claimTimeoutMs ?? Math.max(heartbeatMs * 3, 1_000);
  const tickMs = Math.max(50, Math.floor(Math.min(heartbeatMs, ackWaitMs / 3)));
  const outageRetryMs = options.outageRetryMs ?? 500;
  const outageRetryMaxMs = options.outageRetryMaxMs ?? 10_000;
  const consumers: Consumer[] = [];
  /** Raised by `stop()`: deliveries waiting out an outage hand their jobs back to the bus. */
  let stopping = new AbortController();

  /**
   * Keeps a delivery alive from the moment it is taken: its bus lease at once and on every tick, and
   * the task's attempt lease once held. Renewal cannot wait for the attempt to begin — on a slow or
   * loaded worker the leases would lapse first, the bus would deliver the job again, and the new
   * delivery would supersede this healthy attempt. Failures (the bus or the store down) are logged
   * once and retried on the next tick; they never reject unhandled.
   */
  function keepAlive(delivery: Delivery, taskLog: Logger, onSuperseded: () => void) {
    let lease: { name: string; holder: string } | null = null;
    let inFlight = false;
    let failing = false;
    const renew = async (): Promise<void> => {
      await delivery.working();
      if (lease && !(await leases.acquireLease(lease.name, lease.holder, ackWaitMs))) {
        // Silent past the lease's end and taken over: this attempt has been superseded.
        onSuperseded();
      }
    };
    const tick = (): void => {
      if (inFlight) return;
      inFlight = true;
      renew()
        .then(
          () => {
            failing = false;
          },
          (error: unknown) => {
            if (!failing) taskLog.warn({ err: error }, 'could not renew the attempt; retrying');
            failing = true;
          },
        )
        .finally(() => {
          inFlight = false;
        });
    };
    tick();
    const timer = setInterval(tick, tickMs);
    return {
      hold(name: string, holder: string): void {
        lease = { name, holder };
      },
      stop(): void {
        clearInterval(timer);
      },
    };
  }

  /**
   * Runs a delivery to its end. An engine outage (taking the lease, beginning, or in the middle of
   * an attempt) does not hand the job back to the bus: every redelivery counts toward the bus's
   * dead-letter limit, and an outage says nothing about the job, so a long one would bury jobs that
   * are fine. The delivery waits instead, kept alive, and tries again with a growing pause until
   * the engine answers, the attempt is superseded, or the worker stops.
   */
  async function runDelivery(job: JobType, delivery: Delivery): Promise<void> {
    const taskId = String(delivery.payload['taskId']);
    const caller: Caller = {
      actorId: `system:worker:${workerId}`,
      correlationId: String(delivery.payload['correlationId'] ?? `task-${taskId}`),
    };
    const taskLog = log.child({
      taskId,
      jobType: job.name,
      correlationId: caller.correlationId,
      delivery: delivery.deliveryCount,
    });

    const leaseName = taskAttemptLease(taskId);
    const holder = attemptHolder(delivery, workerId);
    const controller = new AbortController();
    const alive = keepAlive(delivery, taskLog, () => {
      if (!controller.signal.aborted) controller.abort(new TaskStopped('superseded'));
    });
    let leaseHeld = false;
    let owedYield: OwedYield | null = null;
    let outage: Error | null = null;
    try {
      for (let outages = 0; ; outages += 1) {
        if (outage) {
          await pauseForOutage(outages, controller.signal, outage);
          if (controller.signal.aborted) return; // superseded while waiting: the other attempt has it
        }
        try {
          if (owedYield) await recordYield(owedYield, caller);
          owedYield = null;
          if (!leaseHeld) {
            if (!(await leases.acquireLease(leaseName, holder, ackWaitMs))) {
              await settleDuplicate(delivery, leaseName, taskLog);
              return;
            }
            leaseHeld = true;
            alive.hold(leaseName, holder);
          }
          const interrupted = await runAttempt(job, delivery, taskId, caller, taskLog, controller);
          if (!interrupted) {
            if (outages > 0) taskLog.info({ outages }, 'the engines answer again: delivery finished');
            return;
          }
          owedYield = interrupted.owedYield;
          outage = interrupted.error;
          if (outages === 0)
            taskLog.warn(
              { err: interrupted.error },
              'task attempt interrupted by an engine outage; waiting for the engine to resume it',
            );
        } catch (error) {
          if (!isServiceUnavailable(error)) throw error;
          outage = error;
          if (outages === 0)
            taskLog.warn({ err: error }, 'an engine is down before the attempt could run; waiting for it');
        }
      }
    } finally {
      alive.stop();
      if (leaseHeld) await leases.releaseLease(leaseName, holder).catch(() => undefined);
    }
  }

  /**
   * Waits before the next try after an outage: 0.5 s doubling to 10 s. A stopping worker ends the
   * wait by handing the job back to the bus: it throws the outage, and the bus delivers the job again.
   */
  async function pauseForOutage(outages: number, superseded: AbortSignal, outage: Error): Promise<void> {
    const waitMs = Math.min(outageRetryMs * 2 ** (outages - 1), outageRetryMaxMs);
    const signal = AbortSignal.any([superseded, stopping.signal]);
    await sleep(waitMs, undefined, { signal }).catch(() => undefined);
    if (stopping.signal.aborted) throw outage;
  }

  /** Records the yield an outage kept from being written; an attempt that has moved on needs none. */
  async function recordYield(owed: OwedYield, caller: Caller): Promise<void> {
    try {
      await tasks.execute(
        'YieldAttempt',
        { taskId: owed.taskId, attempt: owed.attempt, reason: owed.reason },
        caller,
      );
    } catch (error) {
      if (!(asStop(error) instanceof TaskStopped)) throw error;
    }
  }

  /** Another delivery holds the task: wait for a lapsed one of the same job, ack a duplicate. */
  async function settleDuplicate(delivery: Delivery, leaseName: string, taskLog: Logger): Promise<void> {
    const current = await leases.readLease(leaseName);
    if (current && jobOfHolder(current.owner) === delivery.id) {
      // This very job, delivered again: its last worker stopped answering (or died) and its lease
      // has not run out yet. Come back when it has, and resume the task then.
      const waitMs = Math.max(50, current.expiresAt - Date.now() + 50);
      taskLog.info(
        { retryInMs: waitMs },
        'the previous delivery of this job still holds the task: waiting for its lease',
      );
      await delivery.nak(waitMs);
      return;
    }
    taskLog.info('another live attempt runs this task: acknowledging a duplicate delivery');
  }

  async function runAttempt(
    job: JobType,
    delivery: Delivery,
    taskId: string,
    caller: Caller,
    taskLog: Logger,
    controller: AbortController,
  ): Promise<Interruption | null> {
    let begun;
    try {
      begun = await tasks.execute(
        'BeginAttempt',
        { taskId, workerId, maxAttempts: job.maxAttempts ?? 3, resumable: job.resumable ?? true },
        caller,
      );
    } catch (error) {
      if (error instanceof NotFoundError) {
        // The task's stream is gone (purged): nothing left to do.
        await delivery.term('task no longer exists');
        return null;
      }
      throw error;
    }
    if (begun.state.status !== 'running') {
      taskLog.info({ status: begun.state.status }, 'task needs no attempt');
      return null;
    }
    const { attempt, input } = begun.state;
    const resumed = begun.appended.find((event) => event.type === 'TaskResumed');
    const resumeFrom = resumed?.type === 'TaskResumed' ? resumed.data.resumeFrom : 0;
    taskLog.info({ attempt, resumed: Boolean(resumed) }, resumed ? 'task resumed' : 'task started');

    const stop = (reason: TaskStopped['reason']): void => {
      if (!controller.signal.aborted) controller.abort(new TaskStopped(reason));
    };
    const unsubscribe = bus.subscribe(taskCancelledSubject(taskId), () => stop('cancelled'));
    const timeout = job.timeoutMs
      ? setTimeout(() => controller.abort(new Error(`timed out after ${job.timeoutMs} ms`)), job.timeoutMs)
      : null;

    const context: JobContext = {
      taskId,
      input,
      attempt,
      resumeFrom,
      signal: controller.signal,
      log: taskLog,
      async progress(fraction, message) {
        if (controller.signal.aborted) throw controller.signal.reason;
        try {
          await tasks.execute(
            'ReportProgress',
            { taskId, attempt, progress: fraction, message: message ?? null },
            caller,
          );
        } catch (error) {
          throw asStop(error);
        }
      },
    };

    try {
      const result = await job.run(context);
      if (controller.signal.aborted) throw controller.signal.reason;
      await tasks.execute('CompleteTask', { taskId, attempt, result }, caller).catch((error: unknown) => {
        throw asStop(error);
      });
      taskLog.info('task completed');
    } catch (raw) {
      const error =
        raw instanceof TaskStopped ? raw : controller.signal.aborted ? controller.signal.reason : raw;
      if (error instanceof TaskStopped) {
        taskLog.info({ reason: error.reason }, 'task attempt stopped');
        return null;
      }
      if (isServiceUnavailable(error)) {
        // An engine that is down says nothing about the job: the attempt yields, and the next one
        // resumes the task (its claims and document id are its own). The yield does not use up the
        // job's attempts; when the event store cannot take it now, it is owed and written first.
        const yielded = { taskId, attempt, reason: error.message.slice(0, 500) };
        const recorded = await tasks.execute('YieldAttempt', yielded, caller).then(
          () => true,
          () => false,
        );
        return { error, owedYield: recorded ? null : yielded };
      }
      const message = error instanceof Error ? error.message : String(error);
      taskLog.warn({ err: error }, 'task failed');
      await tasks
        .execute('FailTask', { taskId, attempt, reason: 'job_error', error: message }, caller)
        .catch((failure: unknown) => {
          if (!(asStop(failure) instanceof TaskStopped)) throw failure;
        });
    } finally {
      if (timeout) clearTimeout(timeout);
      unsubscribe();
    }
    return null;
  }

  return {
    start(): void {
      if (stopping.signal.aborted) stopping = new AbortController();
      for (const job of jobs.all()) {
        consumers.push(
          bus.consume(taskQueue(job.name), (delivery) => runDelivery(job, delivery), {
            concurrency: job.concurrency ?? 2,
            ackWaitMs,
            // A delivery is redelivered only when its worker died or stopped (an outage is waited
            // out in place), and the decider fails the task once its attempts are used up, so the
            // bus only dead-letters jobs that kept failing before an attempt could begin.
            maxDeliveries: (job.maxAttempts ?? 3) + 2,
            retryDelaysMs: [500, 2_000, 10_000],
          }),
        );
      }
    },
    async stop(): Promise<void> {
      stopping.abort();
      await Promise.all(consumers.splice(0).map((consumer) => consumer.stop()));
    },
  };
}
