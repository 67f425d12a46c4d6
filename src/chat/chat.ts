import { randomUUID } from 'node:crypto';
import type { Caller } from '../commands/context.js';
import type { Conversations } from '../conversations/conversations.js';
import type { ToolCallRef } from '../domain/conversation/events.js';
import { DomainError, NotFoundError } from '../domain/shared/index.js';
import type { Logger } from '../log.js';
import type { ChatMessage, ChatModel, ChatRequest, TokenUsage, ToolDefinition } from '../models/chatModel.js';
import { ModelError } from '../models/modelError.js';
import { countTokens } from '../models/tokens.js';
import type { MessageView } from '../projections/conversationsProjection.js';
import { ReadStoreUnavailableError } from '../readStore/readStore.js';
import type { ToolPolicy } from '../settings/definitions.js';
import type { Tool } from '../tools/registry.js';
import type { Tools } from '../tools/tools.js';
import { isServiceUnavailable } from '../unavailable.js';
import type { ReadAttachment } from './attachments.js';
import { LiveTurn, type LiveTurns } from './liveTurns.js';
import type { AvailableTools, Planner, TurnPrompt } from './planner.js';
import { jsonPlanner } from './planners/jsonPlanner.js';
import { localModePlanner } from './planners/localModePlanner.js';
import { nativePlanner } from './planners/nativePlanner.js';
import {
  callStatus,
  citationsOf,
  toolMessageContent,
  uniqueCitations,
  abstainedIn,
  type Citation,
  type ToolResultData,
  type TurnToolCall,
} from './turnEvents.js';

/**
 * How the model chooses tools: `native` (the OpenAI `tools` wire format), `json` (the constrained
 * JSON fallback for models that cannot emit tool calls), `local` (the embedded default: no model
 * that chooses, rules instead — see localPlanner.ts).
 */
export type ToolCallingMode = 'native' | 'json' | 'local';

export interface TurnRequest {
  owner: string;
  caller: Caller;
  /** Null: a new conversation, titled from the message. */
  conversationId: string | null;
  message: string;
  autoExecuteTools: boolean;
  systemPrompt: string | null;
  maxTokens: number | null;
  /** Files the message carries, read by the documents pipeline (see attachments.ts). */
  attachments?: readonly ReadAttachment[];
}

export interface ChatOptions {
  conversations: Conversations;
  tools: Tools;
  chatModel: ChatModel;
  mode: ToolCallingMode;
  live: LiveTurns;
  log: Logger;
  /** Model rounds that may call tools before the model must answer. */
  maxToolRounds: number;
  /** The longest a turn may run (model rounds and tools together). */
  turnTimeoutMs: number;
  /**
   * The assistant's own instructions and answer length when the request gives none (the settings
   * aggregate: persona, language, `chat.max_tokens`).
   */
  defaults: () => Promise<{ systemPrompt: string; maxTokens: number | null }>;
  /** Whether the model reads images: attached ones are then sent as image parts beside their text. */
  acceptsImages: boolean;
  /**
   * Resolves true once the conversation read models have applied the log up to `position`, false
   * when they have not in the time allowed: a turn reads its history from them.
   */
  caughtUp: (position: number) => Promise<boolean>;
}

export const DEFAULT_SYSTEM_PROMPT =
  "You are Archivist, an organisation's assistant. Use the tools to look facts up in the knowledge " +
  'base rather than guessing, cite the documents you used, and say so when you cannot find something. ' +
  'Answer in the language of the question.';

/** Earlier messages a turn gives the model (user questions and final answers). */
const HISTORY_MESSAGES = 20;
/** Characters of the first message a new conversation takes as its title. */
const TITLE_CHARS = 80;

/** A conversation's title from its first message: one line, at most TITLE_CHARS. */
export function titleFrom(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length <= TITLE_CHARS ? line : `${line.slice(0, TITLE_CHARS - 1).trimEnd()}…`;
}

function addUsage(total: TokenUsage, more: TokenUsage | undefined): void {
  if (!more) return;
  total.input += more.input;
  total.output += more.output;
  total.total += more.total;
}

/** The usage a tool reports of its own model (query_knowledge's answering model). */
function toolUsage(result: unknown): TokenUsage | undefined {
  const usage = (result as { tokens_used?: TokenUsage } | null)?.tokens_used;
  return usage && typeof usage.input === 'number' && typeof usage.output === 'number' ? usage : undefined;
}

/**
 * How loudly a turn's failure is logged: the user's own doing (a deleted conversation) at info; an
 * outage that passes (a model or store unavailable, a timeout) at warn; anything that needs someone
 * — a bug, a model that refuses our requests or answers unusably — at error.
 */
function levelOf(raw: unknown, type: string): 'info' | 'warn' | 'error' {
  if (raw instanceof DomainError) return 'info';
  if (raw instanceof ModelError) return raw.retryable || raw.code === 'timeout' ? 'warn' : 'error';
  return type === 'service_unavailable' || type === 'turn_timeout' ? 'warn' : 'error';
}

function userContent(request: TurnRequest): string {
  const files = request.attachments ?? [];
  if (files.length === 0) return request.message;
  const parts = files.map((file) => `[Attached file: ${file.name}]\n${file.text}`);
  return `${request.message}\n\n${parts.join('\n\n')}`;
}

/**
 * The conversation so far as a model reads it: questions, final answers and what became of pending
 * actions, without tool traffic.
 */
function historyMessages(messages: readonly MessageView[]): ChatMessage[] {
  return messages.flatMap((message): ChatMessage[] => {
    if (message.role === 'user') return [{ role: 'user', content: message.content }];
    const finalAnswer = message.turnEnd && !message.turnEnd.error;
    if (message.role === 'assistant' && (finalAnswer || message.action) && message.content) {
      return [{ role: 'assistant', content: message.content }];
    }
    return [];
  });
}

function errorOf(raw: unknown): { type: string; message: string } {
  if (raw instanceof ModelError) return { type: `model_${raw.code}`, message: raw.message };
  if (raw instanceof DomainError) return { type: raw.code, message: raw.message };
  if (isServiceUnavailable(raw))
    return { type: 'service_unavailable', message: `${raw.message}; retry later` };
  if (raw instanceof Error && raw.name === 'TimeoutError') {
    return { type: 'turn_timeout', message: 'the answer took too long' };
  }
  return { type: 'internal_error', message: 'the answer failed' };
}

/**
 * Chat turns: a user message, the tool rounds it leads to, and the answer, each step appended to
 * the conversation as it happens and emitted to whoever follows the turn. The same turn serves
 * `chat_with_tools` (which waits for the end) and `stream_ai_response` (which follows it); it runs to
 * its end even when the client goes, so its answer is in the conversation and a reconnecting client
 * resumes it.
 */
export function createChat(options: ChatOptions) {
  const { conversations, tools, chatModel, mode, live, log } = options;
  const planner: Planner =
    mode === 'native' ? nativePlanner : mode === 'json' ? jsonPlanner : localModePlanner;
  /** The tools this turn may use, by name, with their policies (the settings' disabled ones left out). */
  async function availableTools(): Promise<Map<string, { tool: Tool; policy: ToolPolicy }>> {
    return new Map((await tools.available()).map((entry) => [entry.tool.name, entry]));
  }

  async function runCall(
    request: TurnRequest,
    available: Map<string, { tool: Tool; policy: ToolPolicy }>,
    call: ToolCallRef,
    signal: AbortSignal,
  ): Promise<ToolResultData> {
    const base = { tool_call_id: call.id, name: call.name };
    const entry = available.get(call.name);
    if (!entry) {
      return {
        ...base,
        success: false,
        result: null,
        execution_time_ms: 0,
        error: { type: 'tool_not_found', message: `No tool named ${call.name}` },
      };
    }
    const checked = tools.registry.validate(call.name, call.arguments);
    if (!checked.ok) {
      const detail = checked.issues
        .map((issue) => `${issue.field || 'arguments'} ${issue.message}`)
        .join('; ');
      return {
        ...base,
        success: false,
        result: null,
        execution_time_ms: 0,
        error: { type: 'validation_error', message: detail },
      };
    }
    if (entry.policy === 'confirm') {
      const requested = await tools.request(request.owner, call.name, checked.params, request.caller, {
        conversationId: request.conversationId,
        toolCallId: call.id,
      });
      return {
        ...base,
        success: false,
        result: null,
        execution_time_ms: 0,
        requires_confirmation: true,
        action_id: requested.actionId,
        ...(requested.state.status === 'none' ? {} : { approval: requested.state.approval ?? 'self' }),
      };
    }
    const started = Date.now();
    const { taskId, outcome } = await tools.execute(
      request.owner,
      call.name,
      checked.params,
      request.caller,
      signal,
    );
    if (outcome.state === 'running') {
      return {
        ...base,
        success: false,
        result: null,
        task_id: taskId,
        execution_time_ms: Date.now() - started,
        error: { type: 'tool_timeout', message: `${call.name} still runs as task ${taskId}` },
      };
    }
    return {
      ...base,
      success: outcome.success,
      result: outcome.result,
      execution_time_ms: outcome.executionTimeMs,
      ...(outcome.error ? { error: outcome.error } : {}),
      task_id: taskId,
    };
  }

  /** What the model reads in a turn: the instructions, the history, and the user's message. */
  async function prompt(
    request: TurnRequest,
    turn: LiveTurn,
    available: AvailableTools,
    signal: AbortSignal,
  ): Promise<TurnPrompt> {
    const definitions: ToolDefinition[] = [...available.values()].map(({ tool }) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.params,
    }));
    const defaults = await options.defaults();
    const system = request.systemPrompt ?? defaults.systemPrompt;
    const maxTokens = request.maxTokens ?? defaults.maxTokens;
    // The history is read from the read models, which apply this turn's user message (and, for a
    // new conversation, its creation) a moment after it is stored.
    if (!(await options.caughtUp(turn.position))) {
      throw new ReadStoreUnavailableError('the conversation history is not up to date yet');
    }
    const history = await conversations.history(request.owner, turn.conversationId, {
      offset: Math.max(0, turn.turnSequence - 1 - HISTORY_MESSAGES),
      limit: Math.min(HISTORY_MESSAGES, turn.turnSequence - 1),
    });
    const images = options.acceptsImages
      ? (request.attachments ?? []).flatMap((file) => (file.image ? [file.image] : []))
      : [];
    return {
      system,
      definitions,
      messages: [
        { role: 'system', content: system },
        ...historyMessages(history.messages),
        { role: 'user', content: userContent(request), ...(images.length > 0 ? { images } : {}) },
      ],
      base: { signal, ...(maxTokens !== null ? { maxTokens } : {}) },
    };
  }

  /** One turn's work after its user message is stored: the planner's rounds of model and tools, then the answer. */
  async function run(request: TurnRequest, turn: LiveTurn, signal: AbortSignal): Promise<void> {
    const { owner, caller } = request;
    const conversationId = turn.conversationId;
    const usage: TokenUsage = { input: 0, output: 0, total: 0 };
    const calls: TurnToolCall[] = [];
    const citations: Citation[] = [];
    let pending = ''; // content emitted since the last stored message
    let said = ''; // everything the turn said
    let round = 0;

    const append = async (message: Parameters<Conversations['append']>[2]) => {
      const stored = await conversations.append(
        owner,
        conversationId,
        { ...message, turnId: turn.turnId },
        caller,
      );
      turn.position = Math.max(turn.position, stored.position);
      return stored;
    };
    const say = (text: string): void => {
      if (!text) return;
      pending += text;
      said += text;
      turn.emit({ event: 'content', data: { content: text } });
    };
    /** Stores a round's tool calls (with the content said before them), then runs each in turn. */
    async function callTools(
      proposed: ToolCallRef[],
      available: Map<string, { tool: Tool; policy: ToolPolicy }>,
    ): Promise<ToolResultData[]> {
      await append({ role: 'assistant', content: pending, toolCalls: proposed });
      pending = '';
      const results: ToolResultData[] = [];
      for (const call of proposed) {
        turn.emit({
          event: 'tool_start',
          data: { tool_call_id: call.id, name: call.name, arguments: call.arguments },
        });
        const result = await runCall(request, available, call, signal);
        await append({
          role: 'tool',
          content: toolMessageContent(result),
          toolResult: { toolCallId: call.id, name: call.name, success: result.success },
        });
        turn.emit({ event: 'tool_result', data: result });
        calls.push({ ...call, status: callStatus(result) });
        citations.push(...citationsOf(result));
        addUsage(usage, toolUsage(result.result));
        results.push(result);
      }
      return results;
    }
    const callId = (): string => `call_${turn.turnSequence}_${++round}_${calls.length + 1}`;
    /**
     * Text said with no model reporting what it used — the local planner's rules composing an answer
     * from a tool's result, or a server that leaves usage out — is counted with the tokenizer: the
     * message read, the text written. A turn that said something never reports zero tokens.
     */
    const countWhatWasSaid = (): void => {
      if (usage.total > 0 || said.length === 0) return;
      usage.input = countTokens(request.message);
      usage.output = countTokens(said);
      usage.total = usage.input + usage.output;
    };

    try {
      const available = await availableTools();
      const end = await planner.plan({
        message: request.message,
        attachments: request.attachments ?? [],
        autoExecuteTools: request.autoExecuteTools,
        available,
        maxToolRounds: options.maxToolRounds,
        signal,
        log,
        prompt: () => prompt(request, turn, available, signal),
        stream: streamRound,
        async complete(chatRequest) {
          const completion = await chatModel.complete(chatRequest);
          addUsage(usage, completion.usage);
          return completion;
        },
        say,
        saidSinceStored: () => pending,
        callTools: (proposed) => callTools(proposed, available),
        callId,
      });
      await finish(end.proposed ?? [], end.finishReason);
    } catch (raw) {
      const error = errorOf(raw);
      const level = levelOf(raw, error.type);
      if (level === 'error') log.error({ err: raw, error }, 'chat turn failed');
      else log[level]({ error }, 'chat turn ended with an error');
      countWhatWasSaid();
      const messageId = await append({
        role: 'assistant',
        content: pending,
        turnEnd: { tokensUsed: { ...usage }, finishReason: 'error', error },
      })
        .then((stored) => stored.messageId)
        .catch(() => '');
      turn.emit({
        event: 'error',
        data: { error: error.type, detail: error.message, message_id: messageId },
      });
    }

    async function streamRound(chatRequest: ChatRequest) {
      for await (const part of chatModel.stream(chatRequest)) {
        if (part.type === 'delta') say(part.content);
        else {
          addUsage(usage, part.completion.usage);
          return part.completion;
        }
      }
      throw new ModelError('bad_response', 'the model stream ended without an answer');
    }

    /** Stores the turn's last message (what was said since the last one, and the proposed calls). */
    async function finish(proposed: ToolCallRef[], reason: string): Promise<void> {
      countWhatWasSaid();
      const stored = await append({
        role: 'assistant',
        content: pending,
        ...(proposed.length > 0 ? { toolCalls: proposed } : {}),
        turnEnd: { tokensUsed: { ...usage }, finishReason: reason },
      });
      pending = '';
      for (const call of proposed) calls.push({ ...call, status: 'proposed' });
      // A client that reads the conversation once it has `done` must find the answer in it: the read
      // models get the same bounded wait a write route gives them before it answers.
      await options.caughtUp(turn.position).catch(() => false);
      turn.emit({
        event: 'done',
        data: {
          conversation_id: conversationId,
          message_id: stored.messageId,
          tokens_used: { ...usage },
          finish_reason: reason,
          tool_calls: calls,
          citations: uniqueCitations(citations),
          abstained: abstainedIn(said),
        },
      });
    }
  }

  return {
    mode,
    modelName: chatModel.name,
    live,
    /**
     * Stores the user's message (creating the conversation when none is given) and starts the turn.
     * Anything wrong with the request (unknown or deleted conversation) throws here, before a
     * response has begun; what goes wrong later ends the turn with an `error` event.
     */
    async start(request: TurnRequest): Promise<LiveTurn> {
      let conversationId = request.conversationId;
      if (conversationId === null) {
        const created = await conversations.create(request.owner, titleFrom(request.message), request.caller);
        conversationId = created.conversationId;
      } else {
        await conversations.get(request.owner, conversationId);
      }
      const attachments = (request.attachments ?? []).map(({ sha256, name, mimeType, sizeBytes }) => ({
        sha256,
        name,
        mimeType,
        sizeBytes,
      }));
      // The turn is named by its user message, which carries its own id as `turnId` like the rest.
      const turnId = randomUUID();
      const stored = await conversations.append(
        request.owner,
        conversationId,
        {
          messageId: turnId,
          turnId,
          role: 'user',
          content: userContent(request),
          ...(attachments.length > 0 ? { attachments } : {}),
        },
        request.caller,
      );
      const turn = new LiveTurn(conversationId, stored.sequence, stored.messageId);
      turn.position = stored.position;
      live.add(turn);
      const signal = AbortSignal.timeout(options.turnTimeoutMs);
      void run({ ...request, conversationId }, turn, signal).finally(() => {
        if (!turn.ended)
          turn.emit({
            event: 'error',
            data: { error: 'internal_error', detail: 'the answer failed', message_id: '' },
          });
        live.release(turn);
      });
      return turn;
    },
    /** The owner's turn by its conversation and user-message sequence, for a resuming client. */
    async turnMessages(owner: string, conversationId: string, turnSequence: number) {
      const page = await conversations.history(owner, conversationId, {
        offset: turnSequence - 1,
        limit: 200,
      });
      const [first, ...rest] = page.messages;
      if (!first || first.sequence !== turnSequence || first.role !== 'user') {
        throw new NotFoundError(
          'turn_not_found',
          `No answer ${turnSequence} in conversation ${conversationId}`,
        );
      }
      return rest.filter((message) => message.turnId === first.messageId);
    },
  };
}

export type Chat = ReturnType<typeof createChat>;

/** A tool call's arguments as the model wrote them; broken JSON becomes an empty object (then invalid). */
