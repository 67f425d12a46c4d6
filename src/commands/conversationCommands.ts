import type { ConversationCommand } from '../domain/conversation/commands.js';
import type { ConversationState } from '../domain/conversation/decider.js';
import { conversationDecider } from '../domain/conversation/decider.js';
import type { ConversationEvent } from '../domain/conversation/events.js';
import { conversationEvents } from '../domain/conversation/events.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { defineAggregate } from './aggregate.js';
import type { CommandOutcome } from './commandHandler.js';
import { createCommandHandler } from './commandHandler.js';
import type { Caller, Clock } from './context.js';
import { metadataFor } from './context.js';
import type { SnapshotStore } from './snapshots.js';

export const conversationAggregate = defineAggregate({
  category: 'conversation',
  decider: conversationDecider,
  events: conversationEvents,
  // A conversation may hold thousands of messages: an append folds at most this many events.
  snapshot: { every: 200, schema: 1 },
  purgedBy: ['ConversationPurged'],
});

type DataOf<T extends ConversationCommand['type']> = Extract<ConversationCommand, { type: T }>['data'];
export type ConversationOutcome = CommandOutcome<ConversationEvent, ConversationState>;

/** The conversation aggregate's commands, with metadata stamped from the caller and the clock. */
export function createConversationCommands(deps: {
  eventStore: EventStore;
  snapshots?: SnapshotStore;
  clock: Clock;
}) {
  const handler = createCommandHandler(conversationAggregate, {
    eventStore: deps.eventStore,
    ...(deps.snapshots ? { snapshots: deps.snapshots } : {}),
  });
  function run<T extends ConversationCommand['type']>(
    type: T,
    data: DataOf<T>,
    caller: Caller,
  ): Promise<ConversationOutcome> {
    const command = { type, data, metadata: metadataFor(caller, deps.clock) } as ConversationCommand;
    return handler.handle(data.conversationId, command);
  }
  return {
    create: (data: DataOf<'CreateConversation'>, caller: Caller) => run('CreateConversation', data, caller),
    append: (data: DataOf<'AppendMessage'>, caller: Caller) => run('AppendMessage', data, caller),
    delete: (data: DataOf<'DeleteConversation'>, caller: Caller) => run('DeleteConversation', data, caller),
    restore: (data: DataOf<'RestoreConversation'>, caller: Caller) =>
      run('RestoreConversation', data, caller),
    purge: (data: DataOf<'PurgeConversation'>, caller: Caller) => run('PurgeConversation', data, caller),
  };
}

export type ConversationCommands = ReturnType<typeof createConversationCommands>;
