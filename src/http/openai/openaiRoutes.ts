import { titleFrom, type Chat } from '../../chat/chat.js';
import type { LiveTurn } from '../../chat/liveTurns.js';
import type { Citation, TurnDone, TurnEvent } from '../../chat/turnEvents.js';
import type { Conversations } from '../../conversations/conversations.js';
import { PASSAGE_PROPERTIES } from '../../knowledge/passage.js';
import { principalOf } from '../assistant/auth.js';
import { HttpError } from '../httpError.js';
import { toolCallSchema } from '../assistant/chatRoutes.js';
import { turnEnd, turnText } from '../assistant/turnEnd.js';
import { defineRoute, type Route, type Schema } from '../route.js';
import { openSse, pumpSse } from '../sse.js';
import { openaiError, openaiErrorSchema } from './openaiError.js';

/** The one model the wire offers: the assistant itself, with its tools and knowledge base. */
export const ASSISTANT_MODEL = 'archivist';
const TAGS = ['OpenAI-compatible'];
const MAX_MESSAGES = 200;
const MAX_MESSAGE_CHARS = 32_000;
const MAX_SYSTEM_PROMPT_CHARS = 8_000;

export interface OpenAiRouteDeps {
  chat: Chat;
  conversations: Pick<Conversations, 'create' | 'append'>;
  maxTokensLimit: number;
  sseKeepAliveMs: number;
  /** When the server started: the model's `created`, in seconds. */
  startedAt: Date;
  /** Waits until the conversation read models hold the log up to `position` (a turn reads them). */
  conversationsCaughtUp(position: number): Promise<void>;
}

const modelSchema = {
  type: 'object',
  required: ['id', 'object', 'created', 'owned_by'],
  properties: {
    id: { type: 'string' },
    object: { const: 'model' },
    created: { type: 'integer' },
    owned_by: { type: 'string' },
  },
} as const satisfies Schema;

const citationSchema = {
  type: 'object',
  required: ['index', 'doc_id', 'title', 'score'],
  properties: {
    index: { type: 'integer', description: 'The number the content refers to it by: [index]' },
    doc_id: { type: 'string' },
    title: { type: ['string', 'null'] },
    score: { type: 'number' },
    ...PASSAGE_PROPERTIES,
  },
} as const satisfies Schema;

/** What Archivist adds to a completion: its conversation, the calls its tools made, what awaits approval. */
const archivistSchema = {
  type: 'object',
  required: ['conversation_id', 'tool_calls', 'pending_actions', 'abstained'],
  properties: {
    conversation_id: { type: 'string', description: 'Send it back as `conversation_id` to continue there' },
    tool_calls: {
      type: 'array',
      description: 'The calls the assistant made server-side (not for the client to run)',
      items: toolCallSchema,
    },
    pending_actions: {
      type: 'array',
      description:
        'High-risk calls that wait for approval (confirm_action of the Assistant API); nothing ran',
      items: {
        type: 'object',
        required: ['action_id', 'tool_name', 'approval'],
        properties: {
          action_id: { type: 'string' },
          tool_name: { type: 'string' },
          approval: { enum: ['self', 'admin', 'other_user'] },
        },
      },
    },
    abstained: { type: 'boolean' },
  },
} as const satisfies Schema;

const usageSchema = {
  type: 'object',
  required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
  properties: {
    prompt_tokens: { type: 'integer' },
    completion_tokens: { type: 'integer' },
    total_tokens: { type: 'integer' },
  },
} as const satisfies Schema;

const completionSchema = {
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices', 'usage', 'citations', 'archivist'],
  properties: {
    id: { type: 'string' },
    object: { const: 'chat.completion' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'message', 'finish_reason'],
        properties: {
          index: { type: 'integer' },
          message: {
            type: 'object',
            required: ['role', 'content'],
            properties: { role: { const: 'assistant' }, content: { type: 'string' } },
          },
          finish_reason: { enum: ['stop', 'length'] },
        },
      },
    },
    usage: usageSchema,
    citations: { type: 'array', items: citationSchema },
    archivist: archivistSchema,
  },
} as const satisfies Schema;

/** A message's text: a string, or the text parts of an array of parts (other parts are refused before). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part as { text?: unknown }).text)
    .filter((text): text is string => typeof text === 'string')
    .join('\n');
}

type WireMessage = { role: string; content?: unknown };

/** The numbered sources appended to the content: what `[n]` in the answer refers to. */
function sourcesText(citations: readonly Citation[]): string {
  if (citations.length === 0) return '';
  const lines = citations.map((citation, index) => {
    const pages =
      citation.page_start !== undefined
        ? citation.page_end !== undefined && citation.page_end !== citation.page_start
          ? ` (pp. ${citation.page_start}–${citation.page_end})`
          : ` (p. ${citation.page_start})`
        : '';
    return `[${index + 1}] ${citation.title ?? citation.doc_id}${pages} — ${citation.doc_id}`;
  });
  return `\n\nSources:\n${lines.join('\n')}`;
}

/** What Archivist adds to a completion. */
function archivistPart(turn: LiveTurn, done: TurnDone) {
  const results = turn.events.flatMap((event) => (event.event === 'tool_result' ? [event.data] : []));
  return {
    conversation_id: done.conversation_id,
    tool_calls: done.tool_calls.map(({ id, name, arguments: args, status }) => ({
      id,
      name,
      arguments: args,
      status,
    })),
    pending_actions: results
      .filter((result) => result.requires_confirmation && result.action_id)
      .map((result) => ({
        action_id: result.action_id!,
        tool_name: result.name,
        approval: result.approval ?? 'self',
      })),
    abstained: done.abstained,
  };
}

const usageOf = (done: TurnDone) => ({
  prompt_tokens: done.tokens_used.input,
  completion_tokens: done.tokens_used.output,
  total_tokens: done.tokens_used.total,
});

const finishReasonOf = (done: TurnDone): 'stop' | 'length' =>
  done.finish_reason === 'length' ? 'length' : 'stop';
const numbered = (citations: readonly Citation[]) =>
  citations.map((citation, index) => ({ index: index + 1, ...citation }));

/**
 * The OpenAI chat completions wire over the assistant: `GET /v1/models` and `POST /v1/chat/completions`,
 * streaming and not. A completion is a chat turn as `chat_with_tools` runs it — the assistant's
 * tools run server-side, a high-risk call becomes a pending action that nothing runs unapproved —
 * in a conversation of the caller's, so its history and approvals are the Assistant API's too.
 */
export function openaiRoutes(deps: OpenAiRouteDeps): Route[] {
  const { chat } = deps;
  const created = Math.floor(deps.startedAt.getTime() / 1000);
  const model = { id: ASSISTANT_MODEL, object: 'model' as const, created, owned_by: 'archivist' };
  const maxTokens = { type: ['integer', 'null'], minimum: 1, maximum: deps.maxTokensLimit } as const;
  const textPart = {
    type: 'object',
    required: ['type', 'text'],
    properties: { type: { const: 'text' }, text: { type: 'string', maxLength: MAX_MESSAGE_CHARS } },
  } as const;

  function assertModel(name: string): void {
    if (name !== ASSISTANT_MODEL) {
      throw new HttpError(
        404,
        'model_not_found',
        `The model ${name} does not exist: this server offers ${ASSISTANT_MODEL}`,
      );
    }
  }

  return [
    defineRoute({
      method: 'get',
      path: '/models',
      operationId: 'openaiListModels',
      summary: 'The models of the OpenAI wire: the assistant',
      tags: TAGS,
      responses: {
        200: {
          description: 'The model list',
          schema: {
            type: 'object',
            required: ['object', 'data'],
            properties: { object: { const: 'list' }, data: { type: 'array', items: modelSchema } },
          },
        },
      },
      async handle() {
        return { body: { object: 'list', data: [model] } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/models/{model}',
      operationId: 'openaiGetModel',
      summary: 'One model of the OpenAI wire',
      tags: TAGS,
      params: {
        type: 'object',
        required: ['model'],
        properties: { model: { type: 'string', minLength: 1, maxLength: 128 } },
      },
      responses: {
        200: { description: 'The model', schema: modelSchema },
        400: {
          description: 'Invalid parameters (OpenAI answers them 400, not 422)',
          schema: openaiErrorSchema,
        },
        404: { description: 'No such model', schema: openaiErrorSchema },
      },
      async handle({ params }) {
        assertModel(params.model);
        return { body: model };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/chat/completions',
      operationId: 'openaiChatCompletions',
      summary: 'A chat completion: an assistant turn with its tools, streaming or not',
      description:
        'Runs an assistant turn as `chat_with_tools` does: the knowledge tools run server-side, a high-risk call becomes a pending action (named in the content and in `archivist.pending_actions`) that runs only once approved through `confirm_action`. Without `conversation_id` the messages before the last user message are stored as a new conversation of the caller; with it, only the last user message is added there. Citations are numbered references in the content (a `Sources:` list) and the `citations` field. With `stream: true`, `chat.completion.chunk` events end with `data: [DONE]`; the last chunk before it carries `citations` and `archivist`.',
      tags: TAGS,
      rateLimit: 'chat',
      body: {
        contentType: 'application/json',
        schema: {
          type: 'object',
          required: ['model', 'messages'],
          properties: {
            model: { type: 'string', minLength: 1, maxLength: 128 },
            messages: {
              type: 'array',
              minItems: 1,
              maxItems: MAX_MESSAGES,
              items: {
                type: 'object',
                required: ['role'],
                properties: {
                  role: { enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
                  content: {
                    anyOf: [
                      { type: 'string', maxLength: MAX_MESSAGE_CHARS },
                      { type: 'null' },
                      { type: 'array', maxItems: 100, items: textPart },
                    ],
                  },
                  name: { type: 'string', maxLength: 128 },
                },
              },
            },
            stream: { type: 'boolean', default: false },
            max_tokens: maxTokens,
            max_completion_tokens: maxTokens,
            n: { type: 'integer', minimum: 1, maximum: 1 },
            conversation_id: {
              type: ['string', 'null'],
              minLength: 1,
              maxLength: 128,
              description: 'Archivist: continue this conversation of the caller',
            },
          },
        },
      },
      responses: {
        200: {
          description: 'The completion; with `stream: true`, `chat.completion.chunk` events and `[DONE]`',
          schema: completionSchema,
          alternative: { contentType: 'text/event-stream', schema: { type: 'string' } },
        },
        404: {
          description: 'No such model, or no such conversation of the caller',
          schema: openaiErrorSchema,
        },
        409: { description: 'The conversation is deleted', schema: openaiErrorSchema },
        502: { description: 'The model failed', schema: openaiErrorSchema },
        504: { description: 'The model or the turn took too long', schema: openaiErrorSchema },
      },
      async handle({ body, caller, koa, signal, log }) {
        assertModel(body.model);
        const owner = principalOf(koa).name;
        const messages = body.messages as WireMessage[];
        const last = messages.at(-1)!;
        const message = textOf(last.content).trim();
        if (last.role !== 'user' || message === '') {
          throw new HttpError(422, 'validation_error', 'The last message must be a user message with text', [
            {
              location: 'body',
              field: `messages.${messages.length - 1}`,
              message: 'must be a user message with text',
            },
          ]);
        }
        const instructions = messages
          .filter((each) => each.role === 'system' || each.role === 'developer')
          .map((each) => textOf(each.content).trim())
          .filter(Boolean)
          .join('\n\n');
        if (instructions.length > MAX_SYSTEM_PROMPT_CHARS) {
          throw new HttpError(
            422,
            'validation_error',
            `The system messages hold more than ${MAX_SYSTEM_PROMPT_CHARS} characters`,
            [{ location: 'body', field: 'messages', message: 'system messages too long' }],
          );
        }
        let conversationId = body.conversation_id ?? null;
        const earlier = messages
          .slice(0, -1)
          .filter((each) => each.role === 'user' || each.role === 'assistant')
          .map((each) => ({ role: each.role as 'user' | 'assistant', content: textOf(each.content) }))
          .filter((each) => each.content.trim() !== '');
        if (conversationId === null && earlier.length > 0) {
          // The client's transcript becomes the conversation the turn reads its history from.
          const created = await deps.conversations.create(owner, titleFrom(message), caller);
          conversationId = created.conversationId;
          let position = created.position;
          for (const each of earlier)
            position = (await deps.conversations.append(owner, conversationId, each, caller)).position;
          await deps.conversationsCaughtUp(position);
        }
        const turn = await chat.start({
          owner,
          caller,
          conversationId,
          message,
          autoExecuteTools: true,
          systemPrompt: instructions || null,
          maxTokens: body.max_completion_tokens ?? body.max_tokens ?? null,
        });
        const id = `chatcmpl-${turn.turnId}`;
        const started = Math.floor(Date.now() / 1000);
        koa.set('X-Conversation-Id', turn.conversationId);
        if (!body.stream) {
          await turn.finished();
          const done = turnEnd(turn);
          const content = turnText(turn);
          return {
            body: {
              id,
              object: 'chat.completion',
              created: started,
              model: ASSISTANT_MODEL,
              choices: [
                {
                  index: 0,
                  message: { role: 'assistant', content: content + sourcesText(done.citations) },
                  finish_reason: finishReasonOf(done),
                },
              ],
              usage: usageOf(done),
              citations: numbered(done.citations),
              archivist: archivistPart(turn, done),
            },
            position: turn.position,
          };
        }
        const sse = openSse(koa, signal, deps.sseKeepAliveMs);
        const chunk = (
          delta: Record<string, unknown>,
          finish: string | null,
          extra: Record<string, unknown> = {},
        ) => ({
          id,
          object: 'chat.completion.chunk',
          created: started,
          model: ASSISTANT_MODEL,
          choices: [{ index: 0, delta, finish_reason: finish }],
          ...extra,
        });
        pumpSse(
          sse,
          { signal, log },
          async () => {
            sse.send({ data: chunk({ role: 'assistant', content: '' }, null) });
            let end: TurnEvent | null = null;
            for await (const { event } of turn.follow(0, signal)) {
              if (event.event === 'content') sse.send({ data: chunk({ content: event.data.content }, null) });
              if (event.event === 'done' || event.event === 'error') end = event;
            }
            if (!end) return;
            const done = turnEnd(turn);
            const sources = sourcesText(done.citations);
            if (sources) sse.send({ data: chunk({ content: sources }, null) });
            sse.send({
              data: chunk({}, finishReasonOf(done), {
                usage: usageOf(done),
                citations: numbered(done.citations),
                archivist: archivistPart(turn, done),
              }),
            });
            sse.sendRaw('[DONE]');
          },
          // A turn that failed once the stream had begun ends it with OpenAI's error object.
          (error) => {
            sse.send({ data: openaiError(error) });
            sse.sendRaw('[DONE]');
          },
        );
      },
    }),
  ];
}
