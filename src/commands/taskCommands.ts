import type { TaskCommand } from '../domain/task/commands.js';
import type { TaskState } from '../domain/task/decider.js';
import { taskDecider } from '../domain/task/decider.js';
import type { TaskEvent } from '../domain/task/events.js';
import { taskStream } from '../domain/task/events.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { Caller, Clock } from './context.js';
import { metadataFor } from './context.js';
import type { CommandOutcome } from './handleCommand.js';
import { handleCommand } from './handleCommand.js';

type DataOf<T extends TaskCommand['type']> = Extract<TaskCommand, { type: T }>['data'];
export type TaskOutcome = CommandOutcome<TaskEvent, TaskState>;

/** The task aggregate's commands, with metadata stamped from the caller and the clock. */
export function createTaskCommands(deps: { eventStore: EventStore; clock: Clock; newId: () => string }) {
  function run<T extends TaskCommand['type']>(
    type: T,
    data: DataOf<T>,
    caller: Caller,
  ): Promise<TaskOutcome> {
    const command = { type, data, metadata: metadataFor(caller, deps.clock) } as TaskCommand;
    return handleCommand(deps.eventStore, taskStream(data.taskId), taskDecider, command);
  }

  return {
    async create(
      jobType: string,
      input: Record<string, unknown>,
      caller: Caller,
    ): Promise<TaskOutcome & { taskId: string }> {
      const taskId = deps.newId();
      return { ...(await run('CreateTask', { taskId, jobType, input }, caller)), taskId };
    },
    beginAttempt: (data: DataOf<'BeginAttempt'>, caller: Caller) => run('BeginAttempt', data, caller),
    reportProgress: (data: DataOf<'ReportProgress'>, caller: Caller) => run('ReportProgress', data, caller),
    heartbeat: (data: DataOf<'RecordHeartbeat'>, caller: Caller) => run('RecordHeartbeat', data, caller),
    complete: (data: DataOf<'CompleteTask'>, caller: Caller) => run('CompleteTask', data, caller),
    fail: (data: DataOf<'FailTask'>, caller: Caller) => run('FailTask', data, caller),
    cancel: (data: DataOf<'CancelTask'>, caller: Caller) => run('CancelTask', data, caller),
  };
}

export type TaskCommands = ReturnType<typeof createTaskCommands>;
