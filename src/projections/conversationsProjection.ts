import type { ConversationStatus } from '../domain/conversation/decider.js';
import type { MessageAppended, MessageRole } from '../domain/conversation/events.js';
import { conversationEvents } from '../domain/conversation/events.js';
import type { Projection } from './projection.js';

export const CONVERSATIONS = 'conversations';
export const CONVERSATION_MESSAGES = 'conversation_messages';
export const CONVERSATION_TEXT = 'conversation_text';

/** A conversation as listings see it. */
export type ConversationView = {
  id: string;
  owner: string;
  title: string | null;
  status: ConversationStatus;
  messageCount: number;
  createdAt: string;
  /** Creation or the latest message: what listings order by, newest first. */
  lastActivityAt: string;
  deletedAt: string | null;
  /** Global position of `ConversationCreated`: breaks ties in ordering. */
  sequence: number;
};

/**
 * A message. Its id is `messageKey(conversation, sequence)`, so a page of history is a lookup of
 * consecutive keys — as fast in a conversation of 10,000 messages as in one of ten.
 */
export type MessageView = MessageAppended['data'] & {
  id: string;
  createdAt: string;
};

/** What `search_conversations` searches: a title or a message body, with its owner to filter on. */
export type ConversationTextView = {
  id: string;
  conversationId: string;
  owner: string;
  kind: 'title' | 'message';
  /** 0 for the title. */
  sequence: number;
  messageId: string | null;
  role: MessageRole | null;
  text: string;
  createdAt: string;
};

/** A conversation as `ConversationCreated` makes it (created at `now`, at log position `sequence`). */
export function newConversationView(
  id: string,
  owner: string,
  title: string | null,
  now: string,
  sequence: number,
): ConversationView {
  return {
    id,
    owner,
    title,
    status: 'Active',
    messageCount: 0,
    createdAt: now,
    lastActivityAt: now,
    deletedAt: null,
    sequence,
  };
}

/** Sequences are zero-padded so keys sort as numbers do. */
export const messageKey = (conversationId: string, sequence: number): string =>
  `${conversationId}:${String(sequence).padStart(10, '0')}`;
const titleKey = (conversationId: string): string => `${conversationId}:title`;

/**
 * Conversations, their messages, and the full-text index of titles and message bodies (through the
 * read store's normaliser: Arabic letter variants and diacritics fold). A purge removes all three;
 * a soft deletion only marks the conversation, whose id searches then leave out.
 */
export const conversationsProjection: Projection = {
  name: CONVERSATIONS,
  version: 2,
  handles: conversationEvents.types,
  collections: [
    { name: CONVERSATIONS, indexes: ['owner', 'status', 'lastActivityAt', 'deletedAt', 'sequence'] },
    { name: CONVERSATION_MESSAGES, indexes: ['conversationId'] },
    { name: CONVERSATION_TEXT, indexes: ['conversationId', 'owner'], textFields: ['text'] },
  ],
  async apply(recorded, view) {
    const event = conversationEvents.decode(recorded);
    const now = recorded.metadata.now;
    const { conversationId } = event.data;
    switch (event.type) {
      case 'ConversationCreated': {
        const { owner, title } = event.data;
        const conversation = newConversationView(conversationId, owner, title, now, recorded.position);
        view.put(CONVERSATIONS, conversation);
        if (title) {
          const text: ConversationTextView = {
            id: titleKey(conversationId),
            conversationId,
            owner,
            kind: 'title',
            sequence: 0,
            messageId: null,
            role: null,
            text: title,
            createdAt: now,
          };
          view.put(CONVERSATION_TEXT, text);
        }
        return;
      }
      case 'MessageAppended': {
        const conversation = await view.get<ConversationView>(CONVERSATIONS, conversationId);
        if (!conversation) return;
        const { sequence, messageId, role, content } = event.data;
        const message: MessageView = {
          ...event.data,
          id: messageKey(conversationId, sequence),
          createdAt: now,
        };
        view.put(CONVERSATION_MESSAGES, message);
        const text: ConversationTextView = {
          id: message.id,
          conversationId,
          owner: conversation.owner,
          kind: 'message',
          sequence,
          messageId,
          role,
          text: content,
          createdAt: now,
        };
        view.put(CONVERSATION_TEXT, text);
        return view.patch(CONVERSATIONS, conversationId, {
          messageCount: Math.max(conversation.messageCount, sequence),
          lastActivityAt: now,
        });
      }
      case 'ConversationDeleted':
        return view.patch(CONVERSATIONS, conversationId, { status: 'Deleted', deletedAt: now });
      case 'ConversationRestored':
        return view.patch(CONVERSATIONS, conversationId, { status: 'Active', deletedAt: null });
      case 'ConversationPurged':
        view.delete(CONVERSATIONS, conversationId);
        view.deleteWhere(CONVERSATION_MESSAGES, { conversationId });
        view.deleteWhere(CONVERSATION_TEXT, { conversationId });
        return;
    }
  },
};
