import type { ActionCommand } from '../domain/action/commands.js';
import type { ActionState } from '../domain/action/decider.js';
import { actionDecider } from '../domain/action/decider.js';
import type { ActionEvent } from '../domain/action/events.js';
import { actionEvents } from '../domain/action/events.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { defineAggregate } from './aggregate.js';
import type { CommandOutcome } from './commandHandler.js';
import { createCommandHandler } from './commandHandler.js';
import type { Caller, Clock } from './context.js';
import { metadataFor } from './context.js';

const actionAggregate = defineAggregate({
  category: 'action',
  decider: actionDecider,
  events: actionEvents,
});

type DataOf<T extends ActionCommand['type']> = Extract<ActionCommand, { type: T }>['data'];
export type ActionOutcome = CommandOutcome<ActionEvent, ActionState>;

/** The pending-action aggregate's commands, with metadata stamped from the caller and the clock. */
export function createActionCommands(deps: { eventStore: EventStore; clock: Clock }) {
  const handler = createCommandHandler(actionAggregate, { eventStore: deps.eventStore });
  function run<T extends ActionCommand['type']>(
    type: T,
    data: DataOf<T>,
    caller: Caller,
  ): Promise<ActionOutcome> {
    const command = { type, data, metadata: metadataFor(caller, deps.clock) } as ActionCommand;
    return handler.handle(data.actionId, command);
  }
  return {
    request: (data: DataOf<'RequestAction'>, caller: Caller) => run('RequestAction', data, caller),
    confirm: (data: DataOf<'ConfirmAction'>, caller: Caller) => run('ConfirmAction', data, caller),
    reject: (data: DataOf<'RejectAction'>, caller: Caller) => run('RejectAction', data, caller),
    recordOutcome: (data: DataOf<'RecordActionOutcome'>, caller: Caller) =>
      run('RecordActionOutcome', data, caller),
    read: (actionId: string) => handler.read(actionId),
  };
}

export type ActionCommands = ReturnType<typeof createActionCommands>;
