import type { Decider, EventDraft } from '../shared/index.js';
import { InvalidStateError, NotFoundError } from '../shared/index.js';
import type { ConversationCommand } from './commands.js';
import type { ConversationEvent } from './events.js';
import { conversationStream } from './events.js';

export type ConversationStatus = 'Active' | 'Deleted';

export type ConversationState =
  | { status: 'none' }
  | {
      status: ConversationStatus;
      conversationId: string;
      owner: string;
      title: string | null;
      messageCount: number;
      /** Id of the latest message: a retried append of it is nothing to do. */
      lastMessageId: string | null;
      deletedAt: string | null;
    };

type Draft = EventDraft<ConversationEvent>;
type Existing = Exclude<ConversationState, { status: 'none' }>;

/** The conversation when `owner` owns it; anyone else's is as unknown as one that never existed. */
function owned(state: ConversationState, conversationId: string, owner: string): Existing {
  if (state.status === 'none' || state.owner !== owner) {
    throw new NotFoundError('conversation_not_found', `Conversation ${conversationId} does not exist`);
  }
  return state;
}

function decide(command: ConversationCommand, state: ConversationState): Draft[] {
  const { conversationId } = command.data;
  switch (command.type) {
    case 'CreateConversation': {
      const { owner, title } = command.data;
      if (state.status !== 'none') {
        // The same creation again (a retried request) is nothing to do; anything else is a clash of ids.
        if (state.owner === owner && state.title === title) return [];
        throw new InvalidStateError('conversation_exists', `Conversation ${conversationId} exists already`);
      }
      return [{ type: 'ConversationCreated', data: { conversationId, owner, title } }];
    }
    case 'AppendMessage': {
      const conversation = owned(state, conversationId, command.data.owner);
      const { owner: _owner, messageId, ...message } = command.data;
      // A retried append of the latest message is nothing to do.
      if (conversation.lastMessageId === messageId) return [];
      if (conversation.status === 'Deleted') {
        throw new InvalidStateError(
          'conversation_deleted',
          `Conversation ${conversationId} is deleted; restore it first`,
        );
      }
      return [
        {
          type: 'MessageAppended',
          data: { ...message, conversationId, messageId, sequence: conversation.messageCount + 1 },
        },
      ];
    }
    case 'DeleteConversation': {
      const conversation = owned(state, conversationId, command.data.owner);
      if (conversation.status === 'Deleted') return [];
      return [{ type: 'ConversationDeleted', data: { conversationId } }];
    }
    case 'RestoreConversation': {
      const conversation = owned(state, conversationId, command.data.owner);
      if (conversation.status === 'Active') return [];
      return [{ type: 'ConversationRestored', data: { conversationId } }];
    }
    case 'PurgeConversation': {
      if (state.status === 'none') {
        throw new NotFoundError('conversation_not_found', `Conversation ${conversationId} does not exist`);
      }
      if (state.status !== 'Deleted' || state.deletedAt === null) {
        throw new InvalidStateError(
          'conversation_not_deleted',
          `Conversation ${conversationId} is not deleted`,
        );
      }
      const due = Date.parse(state.deletedAt) + command.data.purgeAfterMs;
      if (Date.parse(command.metadata.now) < due) {
        throw new InvalidStateError(
          'purge_not_due',
          `Conversation ${conversationId} may be purged from ${new Date(due).toISOString()}`,
        );
      }
      return [
        { type: 'ConversationPurged', data: { conversationId, stream: conversationStream(conversationId) } },
      ];
    }
  }
}

function evolve(state: ConversationState, event: ConversationEvent): ConversationState {
  if (event.type === 'ConversationCreated') {
    return {
      status: 'Active',
      conversationId: event.data.conversationId,
      owner: event.data.owner,
      title: event.data.title,
      messageCount: 0,
      lastMessageId: null,
      deletedAt: null,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'MessageAppended':
      return {
        ...state,
        messageCount: event.data.sequence,
        lastMessageId: event.data.messageId,
      };
    case 'ConversationDeleted':
      return { ...state, status: 'Deleted', deletedAt: event.metadata.now };
    case 'ConversationRestored':
      return { ...state, status: 'Active', deletedAt: null };
    case 'ConversationPurged':
      return { status: 'none' };
  }
  return state;
}

export const conversationDecider: Decider<ConversationCommand, ConversationEvent, ConversationState> = {
  decide,
  evolve,
  initialState: () => ({ status: 'none' }),
};
