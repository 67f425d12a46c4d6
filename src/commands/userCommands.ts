import type { UserCommand } from '../domain/user/commands.js';
import type { UserState } from '../domain/user/decider.js';
import { userDecider } from '../domain/user/decider.js';
import type { UserEvent } from '../domain/user/events.js';
import { userEvents } from '../domain/user/events.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { defineAggregate } from './aggregate.js';
import type { CommandOutcome } from './commandHandler.js';
import { createCommandHandler } from './commandHandler.js';
import type { Caller, Clock } from './context.js';
import { metadataFor } from './context.js';

export const userAggregate = defineAggregate({
  category: 'user',
  decider: userDecider,
  events: userEvents,
});

type DataOf<T extends UserCommand['type']> = Extract<UserCommand, { type: T }>['data'];
export type UserOutcome = CommandOutcome<UserEvent, UserState>;

/** The user aggregate's commands, with metadata stamped from the caller and the clock. */
export function createUserCommands(deps: { eventStore: EventStore; clock: Clock }) {
  const handler = createCommandHandler(userAggregate, { eventStore: deps.eventStore });
  function run<T extends UserCommand['type']>(
    type: T,
    data: DataOf<T>,
    caller: Caller,
  ): Promise<UserOutcome> {
    const command = { type, data, metadata: metadataFor(caller, deps.clock) } as UserCommand;
    return handler.handle(data.userId, command);
  }
  return {
    create: (data: DataOf<'CreateUser'>, caller: Caller) => run('CreateUser', data, caller),
    setPassword: (data: DataOf<'SetPassword'>, caller: Caller) => run('SetPassword', data, caller),
    issueApiKey: (data: DataOf<'IssueApiKey'>, caller: Caller) => run('IssueApiKey', data, caller),
    revokeApiKey: (data: DataOf<'RevokeApiKey'>, caller: Caller) => run('RevokeApiKey', data, caller),
    grantRole: (data: DataOf<'GrantRole'>, caller: Caller) => run('GrantRole', data, caller),
    /** The user's current state, read from its stream (not a projection): what authentication trusts. */
    state: async (userId: string): Promise<UserState> => (await handler.read(userId)).state,
  };
}
