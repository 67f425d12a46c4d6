import type { Event } from '../shared/index.js';
import { defineEvents } from '../shared/index.js';

/**
 * A background task was accepted; it waits for a worker. `owner` is on whose behalf it runs (the
 * actor who asked, or the user a system process acts for); schema version 2 added it.
 */
export type TaskCreated = Event<
  'TaskCreated',
  { taskId: string; jobType: string; input: Record<string, unknown>; owner: string }
>;
/** A worker began the first attempt. */
export type TaskStarted = Event<'TaskStarted', { taskId: string; attempt: number; workerId: string }>;
/** A worker took over a task whose previous attempt was interrupted (its worker died or restarted). */
export type TaskResumed = Event<
  'TaskResumed',
  { taskId: string; attempt: number; workerId: string; reason: string; resumeFrom: number }
>;
/**
 * The attempt stopped because an engine it needs is down (nothing about the job): the bus delivers
 * the task again, and that next attempt does not count against the job's attempts.
 */
export type TaskYielded = Event<'TaskYielded', { taskId: string; attempt: number; reason: string }>;
/** Work advanced. `progress` is the fraction done (0–1), never less than before. */
export type TaskProgressed = Event<
  'TaskProgressed',
  { taskId: string; progress: number; message: string | null }
>;
/**
 * Written by earlier versions while a worker was alive but quiet. No longer written: liveness is a
 * lease outside the log, so a long task no longer grows its stream. Kept so old streams still fold.
 */
export type TaskHeartbeat = Event<'TaskHeartbeat', { taskId: string; attempt: number }>;
export type TaskCompleted = Event<
  'TaskCompleted',
  { taskId: string; result: Record<string, unknown> | null }
>;
export type TaskFailed = Event<'TaskFailed', { taskId: string; error: string; reason: TaskFailureReason }>;
export type TaskCancelled = Event<'TaskCancelled', { taskId: string; reason: string | null }>;
/**
 * A finished task's stream is to be removed (its input may hold personal data). Content-free and
 * written outside the task's stream, so it outlives it: read models drop the task, and the purge
 * reactor deletes the stream.
 */
export type TaskPurged = Event<'TaskPurged', { taskId: string; stream: string }>;

export type TaskFailureReason =
  /** The job itself reported an error. */
  | 'job_error'
  /** The worker stopped responding and the task could not be resumed. */
  | 'worker_lost'
  /** Every allowed attempt was used up. */
  | 'attempts_exhausted'
  /** No worker knows this job type. */
  | 'unknown_job_type';

export type TaskEvent =
  | TaskCreated
  | TaskStarted
  | TaskResumed
  | TaskYielded
  | TaskProgressed
  | TaskHeartbeat
  | TaskCompleted
  | TaskFailed
  | TaskCancelled
  | TaskPurged;

export const taskEvents = defineEvents<TaskEvent>({
  TaskCreated: {
    version: 2,
    // Version 1 had no owner: the task ran for whoever created it.
    upcast: { 1: (data, metadata) => ({ ...data, owner: metadata.actorId }) },
  },
  TaskStarted: {},
  TaskResumed: {},
  TaskYielded: {},
  TaskProgressed: {},
  TaskHeartbeat: {},
  TaskCompleted: {},
  TaskFailed: {},
  TaskCancelled: {},
  TaskPurged: {},
});

export const TERMINAL_TASK_EVENTS = [
  'TaskCompleted',
  'TaskFailed',
  'TaskCancelled',
] as const satisfies ReadonlyArray<TaskEvent['type']>;

export function taskStream(taskId: string): string {
  return `task-${taskId}`;
}
