/** How conversations, messages and search hits look on the wire: their schemas and mappings. */
import type { SearchHitView } from '../../conversations/conversations.js';
import type { ConversationView, MessageView } from '../../projections/conversationsProjection.js';
import type { Schema } from '../route.js';

export const nullableString = { type: ['string', 'null'] } as const;

export const conversationSchema = {
  type: 'object',
  required: [
    'conversation_id',
    'title',
    'status',
    'message_count',
    'created_at',
    'last_activity_at',
    'deleted_at',
  ],
  properties: {
    conversation_id: { type: 'string' },
    title: nullableString,
    status: { enum: ['Active', 'Deleted'] },
    message_count: { type: 'integer' },
    created_at: { type: 'string' },
    last_activity_at: { type: 'string' },
    deleted_at: nullableString,
    purge_at: { type: 'string', description: 'When a deleted conversation is purged for good' },
  },
} as const satisfies Schema;

export const messageSchema = {
  type: 'object',
  required: ['message_id', 'sequence', 'role', 'content', 'created_at'],
  properties: {
    message_id: { type: 'string' },
    sequence: { type: 'integer' },
    role: { enum: ['user', 'assistant', 'tool'] },
    content: { type: 'string' },
    tool_calls: { type: 'array', items: { type: 'object' } },
    tool_result: { type: 'object' },
    attachments: { type: 'array', items: { type: 'object' } },
    action: {
      type: 'object',
      description: 'On the message that tells the outcome of a pending action its conversation asked for',
      properties: {
        action_id: { type: 'string' },
        status: { type: 'string' },
        tool_call_id: { type: 'string' },
      },
    },
    turn_id: {
      type: 'string',
      description: 'The user message that began the chat turn this message is part of',
    },
    turn_end: {
      type: 'object',
      description: "On a chat turn's last message: its token use, why it stopped, and its error if it failed",
      properties: {
        tokens_used: { type: 'object' },
        finish_reason: { type: 'string' },
        error: { type: 'object' },
      },
    },
    created_at: { type: 'string' },
  },
} as const satisfies Schema;

export function conversationData(conversation: ConversationView, purgeAfterMs: number) {
  return {
    conversation_id: conversation.id,
    title: conversation.title,
    status: conversation.status,
    message_count: conversation.messageCount,
    created_at: conversation.createdAt,
    last_activity_at: conversation.lastActivityAt,
    deleted_at: conversation.deletedAt,
    ...(conversation.deletedAt
      ? { purge_at: new Date(Date.parse(conversation.deletedAt) + purgeAfterMs).toISOString() }
      : {}),
  };
}

export function messageData(message: MessageView) {
  return {
    message_id: message.messageId,
    sequence: message.sequence,
    role: message.role,
    content: message.content,
    ...(message.toolCalls ? { tool_calls: message.toolCalls } : {}),
    ...(message.toolResult
      ? {
          tool_result: {
            tool_call_id: message.toolResult.toolCallId,
            name: message.toolResult.name,
            success: message.toolResult.success,
          },
        }
      : {}),
    ...(message.attachments
      ? {
          attachments: message.attachments.map((attachment) => ({
            sha256: attachment.sha256,
            name: attachment.name,
            mime_type: attachment.mimeType,
            size_bytes: attachment.sizeBytes,
          })),
        }
      : {}),
    ...(message.action
      ? {
          action: {
            action_id: message.action.actionId,
            status: message.action.status,
            ...(message.action.toolCallId ? { tool_call_id: message.action.toolCallId } : {}),
          },
        }
      : {}),
    ...(message.turnId ? { turn_id: message.turnId } : {}),
    ...(message.turnEnd
      ? {
          turn_end: {
            tokens_used: message.turnEnd.tokensUsed,
            finish_reason: message.turnEnd.finishReason,
            ...(message.turnEnd.error ? { error: message.turnEnd.error } : {}),
          },
        }
      : {}),
    created_at: message.createdAt,
  };
}

export function hitData(hit: SearchHitView) {
  return {
    conversation_id: hit.conversationId,
    title: hit.title,
    match: hit.kind,
    message_id: hit.messageId,
    sequence: hit.sequence,
    role: hit.role,
    snippet: hit.snippet,
    score: hit.score,
  };
}
