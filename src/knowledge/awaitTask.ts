import { TERMINAL_TASK_EVENTS, taskStream } from '../domain/task/events.js';
import type { EventStore } from '../eventStore/eventStore.js';

export interface FinishedTask {
  status: 'completed' | 'failed' | 'cancelled';
  result: Record<string, unknown> | null;
  error: string | null;
  /** Log position of the event that finished it. */
  position: number;
}

const STATUS: Record<string, FinishedTask['status']> = {
  TaskCompleted: 'completed',
  TaskFailed: 'failed',
  TaskCancelled: 'cancelled',
};

/**
 * Follows a task's own stream until it finishes: how a synchronous endpoint waits for the same
 * worker pipeline an asynchronous one hands back a task id for. Rejects when `signal` aborts (the
 * client went away); the task itself goes on.
 */
export async function awaitTask(
  eventStore: Pick<EventStore, 'subscribeToStream'>,
  taskId: string,
  signal: AbortSignal,
): Promise<FinishedTask> {
  const terminal: ReadonlySet<string> = new Set(TERMINAL_TASK_EVENTS);
  for await (const batch of eventStore.subscribeToStream(taskStream(taskId), { signal })) {
    const end = batch.find((event) => terminal.has(event.type));
    if (!end) continue;
    return {
      status: STATUS[end.type]!,
      result: (end.data['result'] as Record<string, unknown> | null | undefined) ?? null,
      error: (end.data['error'] as string | undefined) ?? null,
      position: end.position,
    };
  }
  signal.throwIfAborted();
  throw new Error(`the event stream of task ${taskId} ended before the task finished`);
}
