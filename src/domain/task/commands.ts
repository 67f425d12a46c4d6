import type { Command } from '../shared/index.js';

/** `owner`: on whose behalf the task runs (defaults to the command's actor when omitted). */
export type CreateTask = Command<
  'CreateTask',
  { taskId: string; jobType: string; input: Record<string, unknown>; owner?: string }
>;
/**
 * A worker received the task's job and holds its liveness lease. Starts a pending task, or resumes
 * a running one — the lease proves the attempt before it is gone — at most `maxAttempts` attempts
 * in all; `resumable: false` jobs fail instead.
 */
export type BeginAttempt = Command<
  'BeginAttempt',
  { taskId: string; workerId: string; maxAttempts: number; resumable: boolean }
>;
/** Commands a worker sends during an attempt carry its number: a superseded attempt must stop. */
export type ReportProgress = Command<
  'ReportProgress',
  { taskId: string; attempt: number; progress: number; message: string | null }
>;
/** The attempt stops for an engine outage: its task is delivered again without using up an attempt. */
export type YieldAttempt = Command<'YieldAttempt', { taskId: string; attempt: number; reason: string }>;
export type CompleteTask = Command<
  'CompleteTask',
  { taskId: string; attempt: number; result: Record<string, unknown> | null }
>;
/** `attempt` is null when the failure is decided outside any attempt (watchdog, dead letter). */
export type FailTask = Command<
  'FailTask',
  {
    taskId: string;
    attempt: number | null;
    error: string;
    reason: 'job_error' | 'worker_lost' | 'attempts_exhausted' | 'unknown_job_type';
  }
>;
/**
 * Cancels a task. `onlyIfPending`: only while no worker has begun it (a request withdrawing work it
 * waited for in vain); a task begun meanwhile is left to run, and nothing is recorded.
 */
export type CancelTask = Command<
  'CancelTask',
  { taskId: string; reason: string | null; onlyIfPending?: boolean }
>;
/** Removes a finished task's stream (and so its input) for good. */
export type PurgeTask = Command<'PurgeTask', { taskId: string }>;

export type TaskCommand =
  | CreateTask
  | BeginAttempt
  | ReportProgress
  | YieldAttempt
  | CompleteTask
  | FailTask
  | CancelTask
  | PurgeTask;
