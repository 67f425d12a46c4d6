import { randomUUID } from 'node:crypto';
import type { TaskCommands } from './aggregates.js';
import type { CommandOutcome } from './commandHandler.js';
import type { Caller } from './context.js';
import type { TaskEvent } from '../domain/task/events.js';
import type { TaskState } from '../domain/task/decider.js';

/**
 * Creates a task of `jobType` and says its id. A given `taskId` makes the creation idempotent: a
 * second creation of the same task is nothing to do.
 */
export async function createTask(
  tasks: Pick<TaskCommands, 'execute'>,
  jobType: string,
  input: Record<string, unknown>,
  caller: Caller,
  options: { owner?: string; taskId?: string } = {},
): Promise<CommandOutcome<TaskEvent, TaskState> & { taskId: string }> {
  const { taskId = randomUUID(), ...rest } = options;
  return { ...(await tasks.execute('CreateTask', { taskId, jobType, input, ...rest }, caller)), taskId };
}
