import type { Event } from '../shared/index.js';

/** A background task was accepted; it waits for a worker. */
export type TaskCreated = Event<
  'TaskCreated',
  { taskId: string; jobType: string; input: Record<string, unknown> }
>;
/** A worker began the first attempt. */
export type TaskStarted = Event<'TaskStarted', { taskId: string; attempt: number; workerId: string }>;
/** A worker took over a task whose previous attempt was interrupted (its worker died or restarted). */
export type TaskResumed = Event<
  'TaskResumed',
  { taskId: string; attempt: number; workerId: string; reason: string; resumeFrom: number }
>;
/** Work advanced. `progress` is the fraction done (0–1), never less than before. */
export type TaskProgressed = Event<
  'TaskProgressed',
  { taskId: string; progress: number; message: string | null }
>;
/** The worker is alive but has nothing new to report; keeps the watchdog away during long steps. */
export type TaskHeartbeat = Event<'TaskHeartbeat', { taskId: string; attempt: number }>;
export type TaskCompleted = Event<
  'TaskCompleted',
  { taskId: string; result: Record<string, unknown> | null }
>;
export type TaskFailed = Event<'TaskFailed', { taskId: string; error: string; reason: TaskFailureReason }>;
export type TaskCancelled = Event<'TaskCancelled', { taskId: string; reason: string | null }>;

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
  | TaskProgressed
  | TaskHeartbeat
  | TaskCompleted
  | TaskFailed
  | TaskCancelled;

export const TASK_EVENT_TYPES: ReadonlyArray<TaskEvent['type']> = [
  'TaskCreated',
  'TaskStarted',
  'TaskResumed',
  'TaskProgressed',
  'TaskHeartbeat',
  'TaskCompleted',
  'TaskFailed',
  'TaskCancelled',
];

export const TERMINAL_TASK_EVENTS: ReadonlyArray<TaskEvent['type']> = [
  'TaskCompleted',
  'TaskFailed',
  'TaskCancelled',
];

export function taskStream(taskId: string): string {
  return `task-${taskId}`;
}
