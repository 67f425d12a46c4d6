import type { Conversations } from '../../conversations/conversations.js';
import type { ConversationView } from '../../projections/conversationsProjection.js';
import { CONVERSATIONS, newConversationView } from '../../projections/conversationsProjection.js';
import { assistantErrorSchema } from '../errorHandler.js';
import { defineRoute, type Route } from '../route.js';
import { principalOf } from './auth.js';
import {
  conversationData,
  conversationSchema,
  hitData,
  messageData,
  messageSchema,
  nullableString,
} from './conversationWire.js';
import { envelope, envelopeSchema } from './envelope.js';

/** Most conversations or search hits in one page. */
export const MAX_PAGE_SIZE = 100;
/** Most messages in one page of history. */
const MAX_HISTORY_LIMIT = 500;
const MAX_TITLE_CHARS = 500;
const MAX_QUERY_CHARS = 500;

const TAGS = ['Assistant: conversations'];
const conversationId = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  description: 'Id of the conversation',
} as const;
const page = { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 } as const;
const pageSize = { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 } as const;

const notFound = { description: 'No such conversation of the current user', schema: assistantErrorSchema };
const invalid = { description: 'Invalid parameters', schema: assistantErrorSchema };

/**
 * The conversation endpoints. Every one acts on the current user's conversations only: another
 * user's conversation is answered 404, as an unknown one is (administrators included).
 */
export function conversationRoutes(deps: { conversations: Conversations }): Route[] {
  const { conversations } = deps;
  const data = (conversation: ConversationView) => conversationData(conversation, conversations.purgeAfterMs);
  return [
    defineRoute({
      method: 'post',
      path: '/assistant.api.create_conversation',
      operationId: 'assistantCreateConversation',
      summary: 'Create a conversation',
      tags: TAGS,
      rateLimit: 'chat',
      readAfterWrite: [CONVERSATIONS],
      body: {
        contentType: 'application/json',
        form: true,
        schema: {
          type: 'object',
          properties: { title: { type: ['string', 'null'], maxLength: MAX_TITLE_CHARS } },
        },
      },
      responses: {
        200: { description: 'The new conversation', schema: envelopeSchema(conversationSchema) },
        422: invalid,
      },
      async handle({ body, caller, koa }) {
        const owner = principalOf(koa).name;
        const title = body.title?.trim() || null;
        const outcome = await conversations.create(owner, title, caller);
        const now = outcome.appended[0]?.metadata.now ?? new Date().toISOString();
        const view = newConversationView(outcome.conversationId, owner, title, now, outcome.position);
        return { body: envelope(data(view)), position: outcome.position };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/assistant.api.list_conversations',
      operationId: 'assistantListConversations',
      summary: "The current user's conversations, newest activity first",
      tags: TAGS,
      rateLimit: 'chat',
      query: {
        type: 'object',
        properties: { page, page_size: pageSize, status: { enum: ['Active', 'Deleted'], default: 'Active' } },
      },
      responses: {
        200: {
          description: 'A page of conversations',
          schema: envelopeSchema({
            type: 'object',
            required: ['conversations', 'page', 'page_size', 'total', 'has_more'],
            properties: {
              conversations: { type: 'array', items: conversationSchema },
              page: { type: 'integer' },
              page_size: { type: 'integer' },
              total: { type: 'integer' },
              has_more: { type: 'boolean' },
            },
          }),
        },
        422: invalid,
      },
      async handle({ query, koa }) {
        const options = { page: query.page, pageSize: query.page_size, status: query.status };
        const { conversations: found, total } = await conversations.list(principalOf(koa).name, options);
        return {
          body: envelope({
            conversations: found.map(data),
            page: query.page,
            page_size: query.page_size,
            total,
            has_more: query.page * query.page_size < total,
          }),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/assistant.api.get_conversation_history',
      operationId: 'assistantGetConversationHistory',
      summary: 'Messages of a conversation, oldest first',
      tags: TAGS,
      rateLimit: 'chat',
      query: {
        type: 'object',
        required: ['conversation_id'],
        properties: {
          conversation_id: conversationId,
          limit: { type: 'integer', minimum: 1, maximum: MAX_HISTORY_LIMIT, default: 50 },
          offset: { type: 'integer', minimum: 0, maximum: 100_000_000, default: 0 },
        },
      },
      responses: {
        200: {
          description: 'A page of messages',
          schema: envelopeSchema({
            type: 'object',
            required: ['conversation', 'messages', 'limit', 'offset', 'total', 'has_more'],
            properties: {
              conversation: conversationSchema,
              messages: { type: 'array', items: messageSchema },
              limit: { type: 'integer' },
              offset: { type: 'integer' },
              total: { type: 'integer' },
              has_more: { type: 'boolean' },
            },
          }),
        },
        404: notFound,
        422: invalid,
      },
      async handle({ query, koa }) {
        const { limit, offset } = query;
        const history = await conversations.history(principalOf(koa).name, query.conversation_id, {
          limit,
          offset,
        });
        return {
          body: envelope({
            conversation: data(history.conversation),
            messages: history.messages.map(messageData),
            limit,
            offset,
            total: history.total,
            has_more: offset + limit < history.total,
          }),
        };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/assistant.api.delete_conversation',
      operationId: 'assistantDeleteConversation',
      summary: 'Delete a conversation (restorable until it is purged)',
      tags: TAGS,
      rateLimit: 'chat',
      readAfterWrite: [CONVERSATIONS],
      query: {
        type: 'object',
        required: ['conversation_id'],
        properties: { conversation_id: conversationId },
      },
      responses: {
        200: { description: 'The conversation, now deleted', schema: envelopeSchema(conversationSchema) },
        404: notFound,
        422: invalid,
      },
      async handle({ query, caller, koa }) {
        const owner = principalOf(koa).name;
        const outcome = await conversations.delete(owner, query.conversation_id, caller);
        return {
          body: envelope(await stateData(owner, query.conversation_id, outcome)),
          position: outcome.position,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/assistant.api.restore_conversation',
      operationId: 'assistantRestoreConversation',
      summary: 'Restore a deleted conversation that has not been purged yet',
      tags: TAGS,
      rateLimit: 'chat',
      readAfterWrite: [CONVERSATIONS],
      body: {
        contentType: 'application/json',
        form: true,
        schema: {
          type: 'object',
          required: ['conversation_id'],
          properties: { conversation_id: conversationId },
        },
      },
      responses: {
        200: { description: 'The conversation, active again', schema: envelopeSchema(conversationSchema) },
        404: notFound,
        422: invalid,
      },
      async handle({ body, caller, koa }) {
        const owner = principalOf(koa).name;
        const outcome = await conversations.restore(owner, body.conversation_id, caller);
        return {
          body: envelope(await stateData(owner, body.conversation_id, outcome)),
          position: outcome.position,
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/assistant.api.search_conversations',
      operationId: 'assistantSearchConversations',
      summary: "Full-text search of the current user's conversations (titles and messages)",
      tags: TAGS,
      rateLimit: 'chat',
      query: {
        type: 'object',
        required: ['query'],
        properties: {
          query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS },
          page,
          page_size: pageSize,
        },
      },
      responses: {
        200: {
          description: 'Matching titles and messages, best first',
          schema: envelopeSchema({
            type: 'object',
            required: ['query', 'results', 'page', 'page_size'],
            properties: {
              query: { type: 'string' },
              results: {
                type: 'array',
                items: {
                  type: 'object',
                  required: [
                    'conversation_id',
                    'title',
                    'match',
                    'message_id',
                    'sequence',
                    'role',
                    'snippet',
                    'score',
                  ],
                  properties: {
                    conversation_id: { type: 'string' },
                    title: nullableString,
                    match: { enum: ['title', 'message'] },
                    message_id: nullableString,
                    sequence: { type: 'integer' },
                    role: { enum: ['user', 'assistant', 'tool', null] },
                    snippet: { type: 'string' },
                    score: { type: 'number' },
                  },
                },
              },
              page: { type: 'integer' },
              page_size: { type: 'integer' },
            },
          }),
        },
        422: invalid,
      },
      async handle({ query, koa }) {
        const text = query.query.trim();
        const hits = text
          ? await conversations.search(principalOf(koa).name, text, {
              page: query.page,
              pageSize: query.page_size,
            })
          : [];
        return {
          body: envelope({
            query: query.query,
            results: hits.map(hitData),
            page: query.page,
            page_size: query.page_size,
          }),
        };
      },
    }),
  ];

  /** The conversation as the command left it (the read model may not have caught up yet). */
  async function stateData(
    owner: string,
    id: string,
    outcome: Awaited<ReturnType<Conversations['delete']>>,
  ): Promise<ReturnType<typeof conversationData>> {
    const { state } = outcome;
    if (state.status === 'none') throw new Error(`conversation ${id} has no state after a command`);
    const stored = await conversations.get(owner, id).catch(() => null);
    const fallbackTime = outcome.appended[0]?.metadata.now ?? new Date().toISOString();
    return data({
      id,
      owner,
      title: state.title,
      status: state.status,
      messageCount: state.messageCount,
      createdAt: stored?.createdAt ?? fallbackTime,
      lastActivityAt: stored?.lastActivityAt ?? fallbackTime,
      deletedAt: state.deletedAt,
      sequence: stored?.sequence ?? 0,
    });
  }
}
