import type { TaskCommand } from '../domain/task/commands.js';
import type { TaskState } from '../domain/task/decider.js';
import { taskDecider } from '../domain/task/decider.js';
import type { TaskEvent } from '../domain/task/events.js';
import { taskEvents } from '../domain/task/events.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { defineAggregate } from './aggregate.js';
import type { CommandOutcome } from './commandHandler.js';
import { createCommandHandler } from './commandHandler.js';
import type { Caller, Clock } from './context.js';
import { metadataFor } from './context.js';

export const taskAggregate = defineAggregate({
  category: 'task',
  decider: taskDecider,
  events: taskEvents,
  purgedBy: ['TaskPurged'],
});

type DataOf<T extends TaskCommand['type']> = Extract<TaskCommand, { type: T }>['data'];
export type TaskOutcome = CommandOutcome<TaskEvent, TaskState>;

/** The task aggregate's commands, with metadata stamped from the caller and the clock. */
export function createTaskCommands(deps: { eventStore: EventStore; clock: Clock; newId: () => string }) {
  const handler = createCommandHandler(taskAggregate, { eventStore: deps.eventStore });
  function run<T extends TaskCommand['type']>(
    type: T,
    data: DataOf<T>,
    caller: Caller,
  ): Promise<TaskOutcome> {
    const command = { type, data, metadata: metadataFor(caller, deps.clock) } as TaskCommand;
    return handler.handle(data.taskId, command);
  }

  return {
    async create(
      jobType: string,
      input: Record<string, unknown>,
      caller: Caller,
      options: { owner?: string; taskId?: string } = {},
    ): Promise<TaskOutcome & { taskId: string }> {
      // A given id makes the creation idempotent: a second one of the same task is nothing to do.
      const { taskId = deps.newId(), ...rest } = options;
      return { ...(await run('CreateTask', { taskId, jobType, input, ...rest }, caller)), taskId };
    },
    beginAttempt: (data: DataOf<'BeginAttempt'>, caller: Caller) => run('BeginAttempt', data, caller),
    reportProgress: (data: DataOf<'ReportProgress'>, caller: Caller) => run('ReportProgress', data, caller),
    complete: (data: DataOf<'CompleteTask'>, caller: Caller) => run('CompleteTask', data, caller),
    fail: (data: DataOf<'FailTask'>, caller: Caller) => run('FailTask', data, caller),
    cancel: (data: DataOf<'CancelTask'>, caller: Caller) => run('CancelTask', data, caller),
    purge: (data: DataOf<'PurgeTask'>, caller: Caller) => run('PurgeTask', data, caller),
  };
}

export type TaskCommands = ReturnType<typeof createTaskCommands>;
