import type { Command } from '../shared/index.js';
import type { MessageFields } from './events.js';

/** `owner` is who asks (a user name): a conversation of someone else is answered as unknown. */
export type CreateConversation = Command<
  'CreateConversation',
  { conversationId: string; owner: string; title: string | null }
>;
export type AppendMessage = Command<
  'AppendMessage',
  MessageFields & { conversationId: string; owner: string; messageId: string }
>;
export type DeleteConversation = Command<'DeleteConversation', { conversationId: string; owner: string }>;
export type RestoreConversation = Command<'RestoreConversation', { conversationId: string; owner: string }>;
/** The product's own: purges a conversation deleted at least `purgeAfterMs` before `metadata.now`. */
export type PurgeConversation = Command<
  'PurgeConversation',
  { conversationId: string; purgeAfterMs: number }
>;

export type ConversationCommand =
  CreateConversation | AppendMessage | DeleteConversation | RestoreConversation | PurgeConversation;
