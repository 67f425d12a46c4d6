import type { ActionStatus } from '../action/decider.js';
import type { Event } from '../shared/index.js';
import { defineEvents } from '../shared/index.js';

export type MessageRole = 'user' | 'assistant' | 'tool';

/** A call of a tool that an assistant message proposes or makes; `arguments` as the model gave them. */
export interface ToolCallRef {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** What a `tool` message answers: the call it is the result of (the result itself is the content). */
export interface ToolResultRef {
  toolCallId: string;
  name: string;
  success: boolean;
}

/** What an assistant message tells of a pending action: its outcome, once it has one. */
export interface ActionRef {
  actionId: string;
  status: ActionStatus;
  /** The model's id of the call that became the action, when a chat turn made it. */
  toolCallId?: string;
}

/** A file attached to a message, by its content hash (the bytes live in the blob store, not here). */
export interface AttachmentRef {
  sha256: string;
  name: string;
  mimeType: string | null;
  sizeBytes: number;
}

/**
 * How an assistant turn ended, on the turn's last message: what the model and tools consumed, why it
 * stopped, and the failure when it failed (the message's content is then what was said before it).
 */
export interface TurnEnd {
  tokensUsed: { input: number; output: number; total: number };
  finishReason: string;
  error?: { type: string; message: string };
}

/** A conversation of `owner` (a user name) began. */
export type ConversationCreated = Event<
  'ConversationCreated',
  { conversationId: string; owner: string; title: string | null }
>;
/**
 * What a message says, as it is asked for and as it is recorded. Tool calls, tool results and
 * attachment references are optional and present only on the messages that have them. A chat turn's
 * messages carry `turnId` (the id of the user message that began it); its last one carries
 * `turnEnd`, so a stream of the turn can be replayed from the log alone.
 */
// A type, not an interface: event data must be assignable to a record of unknown values.
export type MessageFields = {
  role: MessageRole;
  content: string;
  toolCalls?: ToolCallRef[];
  toolResult?: ToolResultRef;
  attachments?: AttachmentRef[];
  action?: ActionRef;
  turnId?: string;
  turnEnd?: TurnEnd;
};

/**
 * One message, numbered 1, 2, 3… in its conversation without gaps (`sequence`), so a page of
 * history is a lookup of consecutive keys.
 */
export type MessageAppended = Event<
  'MessageAppended',
  MessageFields & { conversationId: string; messageId: string; sequence: number }
>;
/** Soft deletion: hidden from listing and search, restorable until purged. */
export type ConversationDeleted = Event<'ConversationDeleted', { conversationId: string }>;
export type ConversationRestored = Event<'ConversationRestored', { conversationId: string }>;
/**
 * The conversation's stream is to be removed. Content-free and written outside the conversation's
 * stream (`purged-conversation-<id>`), so it outlives it: read models drop everything derived from
 * the conversation, and the purge reactor deletes the stream.
 */
export type ConversationPurged = Event<'ConversationPurged', { conversationId: string; stream: string }>;

export type ConversationEvent =
  ConversationCreated | MessageAppended | ConversationDeleted | ConversationRestored | ConversationPurged;

export const conversationEvents = defineEvents<ConversationEvent>({
  ConversationCreated: {},
  MessageAppended: {
    version: 2,
    // Version 1 spelled an action's status capitalised (`Executed`); every status is lower case now.
    upcast: {
      1: (data) => {
        const action = data['action'] as Record<string, unknown> | undefined;
        if (!action || typeof action['status'] !== 'string') return data;
        return { ...data, action: { ...action, status: action['status'].toLowerCase() } };
      },
    },
  },
  ConversationDeleted: {},
  ConversationRestored: {},
  ConversationPurged: {},
});

export function conversationStream(conversationId: string): string {
  return `conversation-${conversationId}`;
}
