import { readAttachments } from '../../chat/attachments.js';
import { PASSAGE_PROPERTIES } from '../../knowledge/passage.js';
import type { Chat, TurnRequest } from '../../chat/chat.js';
import type { ParsePool } from '../../parsing/worker/parsePool.js';
import type { FollowedEvent, LiveTurn } from '../../chat/liveTurns.js';
import {
  eventsAfter,
  formatCursor,
  parseCursor,
  turnEventsFromMessages,
  unitsOf,
  type TurnCursor,
  type TurnEvent,
} from '../../chat/turnEvents.js';
import { CONVERSATIONS } from '../../projections/conversationsProjection.js';
import { assistantErrorSchema } from '../errorHandler.js';
import { HttpError } from '../httpError.js';
import { defineRoute, type Route, type RouteRequest, type Schema } from '../route.js';
import { openSse, pumpSse, type SseStream } from '../sse.js';
import { principalOf } from './auth.js';
import { turnEnd, turnText } from './turnEnd.js';
import { envelope, envelopeSchema } from './envelope.js';

export interface ChatRouteDeps {
  chat: Chat;
  parser: Pick<ParsePool, 'run'>;
  /** Largest file a multimodal message may carry (the upload limit). */
  maxFileBytes: number;
  sseKeepAliveMs: number;
  /** The most tokens a request may ask the model to write. */
  maxTokensLimit: number;
  /** How long a resuming client waits for a turn running in another process to store its next step. */
  resumeWaitMs: number;
}

const TAGS = ['Assistant: chat'];
const MAX_MESSAGE_CHARS = 32_000;
/** A GET's prompt travels in the URL: longer messages go through chat_with_tools. */
const MAX_PROMPT_CHARS = 8_000;
const MAX_SYSTEM_PROMPT_CHARS = 8_000;
/** Files one multimodal message may carry, and what of each the model reads. */
const MAX_ATTACHMENTS = 10;
const MAX_ATTACHMENT_TEXT_CHARS = 20_000;
const MAX_IMAGE_BYTES = 4 * 1024 * 1024;
const FILE_FIELDS = ['files[]', 'files'];
/** How often a client resuming a turn of another process looks for its next stored step. */
const RESUME_POLL_MS = 200;

const invalid = { description: 'Invalid parameters', schema: assistantErrorSchema };
const notFound = { description: 'No such conversation of the current user', schema: assistantErrorSchema };
const deleted = {
  description: 'The conversation is deleted (restore it first)',
  schema: assistantErrorSchema,
};
const modelFailed = { description: 'The model failed or was unreachable', schema: assistantErrorSchema };

export const toolCallSchema = {
  type: 'object',
  required: ['id', 'name', 'arguments', 'status'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    arguments: { type: 'object' },
    status: { enum: ['executed', 'failed', 'pending_confirmation', 'proposed'] },
    result: {},
    execution_time_ms: { type: 'number' },
    error: { type: 'object' },
    action_id: { type: 'string' },
  },
} as const satisfies Schema;

const chatAnswerSchema = {
  type: 'object',
  required: [
    'conversation_id',
    'message_id',
    'response',
    'tool_calls',
    'citations',
    'abstained',
    'finish_reason',
    'model',
    'mode',
  ],
  properties: {
    conversation_id: { type: 'string' },
    message_id: { type: 'string' },
    response: { type: 'string' },
    tool_calls: { type: 'array', items: toolCallSchema },
    citations: {
      type: 'array',
      items: {
        type: 'object',
        required: ['doc_id', 'title', 'score'],
        properties: {
          doc_id: { type: 'string' },
          title: { type: ['string', 'null'] },
          score: { type: 'number' },
          // The document's best passage, when the tool that found it gave one.
          ...PASSAGE_PROPERTIES,
        },
      },
    },
    abstained: {
      type: 'boolean',
      description: 'The answer says the documents do not hold it (additive to the spec)',
    },
    finish_reason: { type: 'string' },
    model: { type: 'string' },
    mode: { enum: ['native', 'json', 'local'] },
  },
} as const satisfies Schema;

/** What a chat answer may be, with or without files. */
const answered = {
  200: { description: 'The answer, its tool calls and sources', schema: envelopeSchema(chatAnswerSchema) },
  404: notFound,
  409: deleted,
  422: invalid,
  502: modelFailed,
  504: modelFailed,
};

/** Waits for a turn to end and answers it as `chat_with_tools` does. */
async function answerOf(chat: Chat, turn: LiveTurn) {
  await turn.finished();
  const done = turnEnd(turn);
  const results = new Map(
    turn.events.flatMap((event) =>
      event.event === 'tool_result' ? [[event.data.tool_call_id, event.data]] : [],
    ),
  );
  const response = turnText(turn);
  return {
    body: envelope(
      {
        conversation_id: done.conversation_id,
        message_id: done.message_id,
        response,
        tool_calls: done.tool_calls.map((call) => {
          const result = results.get(call.id);
          return {
            ...call,
            ...(result
              ? {
                  result: result.result,
                  execution_time_ms: result.execution_time_ms,
                  ...(result.error ? { error: result.error } : {}),
                  ...(result.action_id ? { action_id: result.action_id } : {}),
                }
              : {}),
          };
        }),
        citations: done.citations,
        abstained: done.abstained,
        finish_reason: done.finish_reason,
        model: chat.modelName,
        mode: chat.mode,
      },
      done.tokens_used,
    ),
    position: turn.position,
  };
}

function send(sse: SseStream, cursor: Omit<TurnCursor, 'units'>, followed: FollowedEvent): void {
  sse.send({
    id: formatCursor({ ...cursor, units: followed.units }),
    event: followed.event.event,
    data: followed.event.data,
  });
}

/**
 * Chat: `chat_with_tools` runs a turn and answers when it ends; `stream_ai_response` sends the same
 * turn as it happens, and a client that reconnects with `Last-Event-ID` resumes where it stopped —
 * from memory while the turn's process has it, from the stored conversation otherwise.
 */
export function chatRoutes(deps: ChatRouteDeps): Route[] {
  const { chat } = deps;
  const maxTokens = { type: 'integer', minimum: 1, maximum: deps.maxTokensLimit } as const;
  const chatBody = {
    type: 'object',
    required: ['user_message'],
    properties: {
      user_message: { type: 'string', minLength: 1, maxLength: MAX_MESSAGE_CHARS, pattern: '\\S' },
      conversation_id: { type: ['string', 'null'], minLength: 1, maxLength: 128 },
      auto_execute_tools: { type: 'boolean', default: true },
      system_prompt: { type: ['string', 'null'], maxLength: MAX_SYSTEM_PROMPT_CHARS },
      max_tokens: { ...maxTokens, type: ['integer', 'null'] },
    },
  } as const;
  type ChatBody = {
    user_message: string;
    conversation_id?: string | null;
    auto_execute_tools: boolean;
    system_prompt?: string | null;
    max_tokens?: number | null;
  };
  const turnRequest = (body: ChatBody, owner: string, caller: TurnRequest['caller']): TurnRequest => ({
    owner,
    caller,
    conversationId: body.conversation_id ?? null,
    message: body.user_message,
    autoExecuteTools: body.auto_execute_tools,
    systemPrompt: body.system_prompt?.trim() || null,
    maxTokens: body.max_tokens ?? null,
  });

  /** Sends a turn of another process (or an ended one) from the stored conversation, polling for more. */
  async function resumeStored(
    owner: string,
    cursor: TurnCursor,
    sse: SseStream,
    signal: AbortSignal,
    first: { events: TurnEvent[]; ended: boolean },
  ): Promise<void> {
    let units = cursor.units;
    let stored = first;
    const deadline = Date.now() + deps.resumeWaitMs;
    for (;;) {
      for (const event of eventsAfter(stored.events, units)) {
        units += unitsOf(event);
        send(sse, cursor, { event, units });
      }
      if (stored.ended || signal.aborted) return;
      if (Date.now() > deadline) {
        throw new HttpError(504, 'turn_timeout', 'the answer being resumed did not progress in time');
      }
      await new Promise((resolve) => setTimeout(resolve, RESUME_POLL_MS));
      stored = turnEventsFromMessages(
        cursor.conversationId,
        await chat.turnMessages(owner, cursor.conversationId, cursor.turnSequence),
      );
    }
  }

  async function stream(request: RouteRequest<Record<string, unknown>, unknown, unknown>, owner: string) {
    const { koa, signal, log } = request;
    const query = request.query as {
      prompt?: string;
      conversation_id?: string;
      last_event_id?: string;
      auto_execute_tools: boolean;
      max_tokens?: number;
    };
    const header = koa.get('last-event-id') || query.last_event_id;
    if (header) {
      const cursor = parseCursor(header);
      if (!cursor) {
        throw new HttpError(400, 'invalid_last_event_id', 'Last-Event-ID is not an event id of this stream', [
          { location: 'header', field: 'last-event-id', message: 'is not an id this API sent' },
        ]);
      }
      // Also what proves the turn is the owner's: another user's is answered 404.
      const messages = await chat.turnMessages(owner, cursor.conversationId, cursor.turnSequence);
      const live = chat.live.get(cursor.conversationId, cursor.turnSequence);
      if (live?.ended && eventsAfter(live.events, cursor.units).length === 0)
        return { status: 204, body: null };
      if (live) {
        koa.set('X-Conversation-Id', cursor.conversationId);
        const sse = openSse(koa, signal, deps.sseKeepAliveMs);
        pumpSse(sse, { signal, log }, async () => {
          for await (const followed of live.follow(cursor.units, signal)) send(sse, cursor, followed);
        });
        return;
      }
      const stored = turnEventsFromMessages(cursor.conversationId, messages);
      if (stored.ended && eventsAfter(stored.events, cursor.units).length === 0)
        return { status: 204, body: null };
      koa.set('X-Conversation-Id', cursor.conversationId);
      const sse = openSse(koa, signal, deps.sseKeepAliveMs);
      pumpSse(sse, { signal, log }, () => resumeStored(owner, cursor, sse, signal, stored));
      return;
    }
    const prompt = query.prompt?.trim();
    if (!prompt) {
      throw new HttpError(422, 'validation_error', 'query.prompt is required', [
        { location: 'query', field: 'prompt', message: 'is required' },
      ]);
    }
    const turn = await chat.start({
      owner,
      caller: request.caller,
      conversationId: query.conversation_id ?? null,
      message: prompt,
      autoExecuteTools: query.auto_execute_tools,
      systemPrompt: null,
      maxTokens: query.max_tokens ?? null,
    });
    const cursor = { conversationId: turn.conversationId, turnSequence: turn.turnSequence };
    koa.set('X-Conversation-Id', turn.conversationId);
    const sse = openSse(koa, signal, deps.sseKeepAliveMs);
    pumpSse(sse, { signal, log }, async () => {
      for await (const followed of turn.follow(0, signal)) send(sse, cursor, followed);
    });
  }

  return [
    defineRoute({
      method: 'post',
      path: '/assistant.api.chat_with_tools',
      operationId: 'assistantChatWithTools',
      summary: 'Send a message; the assistant answers, using tools',
      description:
        'Stores the message in the conversation (a new one when `conversation_id` is absent), lets the model call tools (high-risk ones become pending actions; with `auto_execute_tools` false the proposed calls are returned without running), and answers when the turn ends. Every step is a message of the conversation.',
      tags: TAGS,
      rateLimit: 'chat',
      readAfterWrite: [CONVERSATIONS],
      body: { contentType: 'application/json', schema: chatBody },
      responses: answered,
      async handle({ body, caller, koa }) {
        return answerOf(chat, await chat.start(turnRequest(body, principalOf(koa).name, caller)));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/assistant.api.chat_with_tools_multimodal',
      operationId: 'assistantChatWithToolsMultimodal',
      summary: 'Send a message with files (images, documents); the assistant answers, using tools',
      description: `Multipart form: the fields of chat_with_tools, and up to ${MAX_ATTACHMENTS} files in \`files[]\` (or \`files\`). Each file goes through the documents pipeline (parsing, OCR, image description); its text (up to ${MAX_ATTACHMENT_TEXT_CHARS} characters) is added to the message, and the message records each file by SHA-256, name, type and size — the file itself is not kept. With LLM_ACCEPTS_IMAGES, PNG and JPEG images up to ${MAX_IMAGE_BYTES / 1024 / 1024} MB are also sent to the model as images. A file the pipeline cannot read fails the request (415, 413 or 422) before anything is stored.`,
      tags: TAGS,
      rateLimit: 'chat',
      readAfterWrite: [CONVERSATIONS],
      body: {
        contentType: 'multipart/form-data',
        schema: chatBody,
        files: Object.fromEntries(
          FILE_FIELDS.map((field) => [
            field,
            { required: false, multiple: true, description: 'Images or documents' },
          ]),
        ),
      },
      responses: {
        ...answered,
        413: { description: 'A file is larger than the upload limit', schema: assistantErrorSchema },
        415: { description: 'A file of a type the pipeline does not read', schema: assistantErrorSchema },
      },
      async handle({ body, files, caller, koa, signal }) {
        const attached = files.filter((file) => FILE_FIELDS.includes(file.field));
        if (attached.length > MAX_ATTACHMENTS) {
          throw new HttpError(
            422,
            'validation_error',
            `body.files[] takes at most ${MAX_ATTACHMENTS} files`,
            [
              {
                location: 'body',
                field: 'files[]',
                message: `takes at most ${MAX_ATTACHMENTS} files, got ${attached.length}`,
              },
            ],
          );
        }
        const attachments = await readAttachments(
          deps.parser,
          attached,
          {
            maxTextChars: MAX_ATTACHMENT_TEXT_CHARS,
            maxImageBytes: MAX_IMAGE_BYTES,
            maxFileBytes: deps.maxFileBytes,
          },
          signal,
        );
        const request = { ...turnRequest(body, principalOf(koa).name, caller), attachments };
        return answerOf(chat, await chat.start(request));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/assistant.api.stream_ai_response',
      operationId: 'assistantStreamAiResponse',
      summary: 'Send a message and follow the answer as Server-Sent Events',
      description:
        'Events: `content` {content} (text deltas), `tool_start` {tool_call_id, name, arguments}, `tool_result` {tool_call_id, name, success, result, execution_time_ms, error?, requires_confirmation?, action_id?, approval?}, `done` {conversation_id, message_id, tokens_used, finish_reason, tool_calls, citations}, `error` {error, detail, message_id}. Each event id is `<conversation>:<turn>:<position>`; reconnecting with it in `Last-Event-ID` (or `last_event_id`) resumes the same answer after that event, without gaps or repeats — `prompt` is then ignored; after the end the reconnect gets 204. The conversation id is also in the `X-Conversation-Id` header.',
      tags: TAGS,
      rateLimit: 'chat',
      query: {
        type: 'object',
        properties: {
          prompt: { type: 'string', maxLength: MAX_PROMPT_CHARS },
          conversation_id: { type: 'string', minLength: 1, maxLength: 128 },
          auto_execute_tools: { type: 'boolean', default: true },
          max_tokens: maxTokens,
          last_event_id: { type: 'string', maxLength: 300 },
        },
      },
      responses: {
        200: {
          description: 'The event stream',
          contentType: 'text/event-stream',
          schema: { type: 'string' },
        },
        204: { description: 'The answer being resumed has ended and the client has all of it' },
        400: { description: 'Last-Event-ID is not an id of this API', schema: assistantErrorSchema },
        404: notFound,
        409: deleted,
        422: invalid,
      },
      async handle(request) {
        return stream(
          request as RouteRequest<Record<string, unknown>, unknown, unknown>,
          principalOf(request.koa).name,
        );
      },
    }),
  ];
}
