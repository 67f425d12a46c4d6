import type { Command } from '../shared/index.js';

export type CreateTask = Command<
  'CreateTask',
  { taskId: string; jobType: string; input: Record<string, unknown> }
>;
/**
 * A worker received the task's job. Starts a pending task, or resumes a running one whose earlier
 * attempt was interrupted (at most `maxAttempts` attempts in all; `resumable: false` jobs fail instead).
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
export type RecordHeartbeat = Command<'RecordHeartbeat', { taskId: string; attempt: number }>;
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
export type CancelTask = Command<'CancelTask', { taskId: string; reason: string | null }>;

export type TaskCommand =
  CreateTask | BeginAttempt | ReportProgress | RecordHeartbeat | CompleteTask | FailTask | CancelTask;
