import type { Bus } from '../bus/bus.js';
import type { Logger } from '../log.js';

/**
 * A kind of background work. `run` does the work in steps, calling `progress` between them: that
 * is where a cancelled task stops (progress throws `TaskStopped`), and `signal` aborts when the task
 * is cancelled, superseded or timed out, for steps that wait on I/O.
 */
export interface JobType {
  /** Lower-case letters, digits, `_` and `-`; also names the work queue. */
  name: string;
  run(context: JobContext): Promise<Record<string, unknown> | null>;
  /** May an interrupted attempt be resumed by running again (default true)? Otherwise it fails. */
  resumable?: boolean;
  /** Attempts in all, counting resumptions after interruptions (default 3). */
  maxAttempts?: number;
  /** Longest an attempt may run before it fails (default: no limit). */
  timeoutMs?: number;
  /** Attempts of this type run at once per worker process (default 2). */
  concurrency?: number;
}

export interface JobContext {
  taskId: string;
  input: Record<string, unknown>;
  /** 1 for the first attempt; higher when resuming after an interruption. */
  attempt: number;
  /** Progress recorded before this attempt (0 on the first): where a resumable job may pick up. */
  resumeFrom: number;
  signal: AbortSignal;
  /** Records progress (0–1, never backwards). Throws `TaskStopped` when the task must stop. */
  progress(fraction: number, message?: string): Promise<void>;
  log: Logger;
}

/** The task must not go on: cancelled, or taken over by another attempt. Not a failure. */
export class TaskStopped extends Error {
  override readonly name = 'TaskStopped';
  constructor(readonly reason: 'cancelled' | 'superseded' | 'finished') {
    super(`task ${reason}`);
  }
}

const JOB_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

export function taskQueue(jobType: string): string {
  return `tasks.${jobType}`;
}

/**
 * Puts a task's job on its type's work queue. `jobId` is the job's de-duplication key: the id of the
 * event that caused it (so the same cause never enqueues twice), or a key of the watchdog's. Several
 * jobs of one task are harmless: a worker given a finished task, or one running elsewhere, just
 * acknowledges it.
 */
export function enqueueTask(
  bus: Bus,
  jobId: string,
  task: { taskId: string; jobType: string; correlationId?: string },
): Promise<boolean> {
  return bus.enqueue(taskQueue(task.jobType), { id: jobId, payload: { ...task } });
}

/** The liveness lease of a task's running attempt: held and renewed by the worker running it. */
export function taskAttemptLease(taskId: string): string {
  return `task-attempt:${taskId}`;
}

/** Where a cancellation is announced so the attempt running it can stop at once. */
export function taskCancelledSubject(taskId: string): string {
  return `archivist.task.cancelled.${taskId}`;
}

export function createJobRegistry(jobs: readonly JobType[] = []) {
  const byName = new Map<string, JobType>();
  const registry = {
    register(job: JobType): void {
      if (!JOB_NAME.test(job.name)) throw new Error(`invalid job type name: ${job.name}`);
      if (byName.has(job.name)) throw new Error(`job type ${job.name} is registered twice`);
      byName.set(job.name, job);
    },
    has: (name: string): boolean => byName.has(name),
    all: (): JobType[] => [...byName.values()],
  };
  jobs.forEach(registry.register);
  return registry;
}

export type JobRegistry = ReturnType<typeof createJobRegistry>;
