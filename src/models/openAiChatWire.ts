/**
 * The vendor edge of the OpenAI-compatible chat adapter: port requests to chat-completions
 * parameters, and completions and stream chunks back to port types. Nothing from the SDK leaves
 * this file and openAiChatModel.ts.
 */
import type {
  ChatCompletion as WireCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type {
  ChatCompletion,
  ChatMessage,
  ChatRequest,
  FinishReason,
  TokenUsage,
  ToolCall,
} from './chatModel.js';
import { ModelError } from './modelError.js';
import { countTokens } from './tokens.js';

export interface ChatDefaults {
  model: string;
  maxTokens: number;
}

function toWireMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      if (!message.images?.length) return { role: 'user', content: message.content };
      return {
        role: 'user',
        content: [
          { type: 'text', text: message.content },
          ...message.images.map((url) => ({ type: 'image_url' as const, image_url: { url } })),
        ],
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        // Some servers reject an empty string beside tool calls; null is what OpenAI sends.
        content: message.content || null,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
  }
}

function toWireToolChoice(choice: NonNullable<ChatRequest['toolChoice']>): ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/** Chat-completions parameters for `request` (without `stream`, which the caller adds). */
export function toWireRequest(
  request: ChatRequest,
  defaults: ChatDefaults,
): ChatCompletionCreateParamsNonStreaming {
  const tools = request.tools ?? [];
  return {
    model: defaults.model,
    messages: request.messages.map(toWireMessage),
    max_tokens: request.maxTokens ?? defaults.maxTokens,
    ...(request.temperature == null ? {} : { temperature: request.temperature }),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            type: 'function' as const,
            function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } },
          })),
        }
      : {}),
    ...(request.toolChoice ? { tool_choice: toWireToolChoice(request.toolChoice) } : {}),
    ...(request.responseFormat
      ? {
          response_format: {
            type: 'json_schema' as const,
            json_schema: {
              name: request.responseFormat.name,
              schema: { ...request.responseFormat.schema },
              strict: request.responseFormat.strict ?? true,
            },
          },
        }
      : {}),
  };
}

const FINISH_REASONS: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
};

/**
 * The port's finish reason. Servers differ: a missing or unknown reason counts as `stop`, and tool
 * calls with a `stop` reason (some servers) as `tool_calls`.
 */
function toFinishReason(reason: string | null | undefined, toolCalls: number): FinishReason {
  const mapped = FINISH_REASONS[reason ?? ''] ?? 'stop';
  return mapped === 'stop' && toolCalls > 0 ? 'tool_calls' : mapped;
}

/** The server's count when it gives one; the local estimate otherwise (some servers send none). */
function toUsage(
  usage: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null | undefined,
  request: ChatRequest,
  content: string,
): TokenUsage {
  if (usage && typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number') {
    return {
      input: usage.prompt_tokens,
      output: usage.completion_tokens,
      total: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens,
    };
  }
  const input = countTokens(request.messages.map((message) => message.content).join('\n'));
  const output = countTokens(content);
  return { input, output, total: input + output };
}

export function fromWireCompletion(
  completion: WireCompletion,
  request: ChatRequest,
  model: string,
): ChatCompletion {
  const choice = (completion as Partial<WireCompletion> | null)?.choices?.[0];
  if (!choice?.message) {
    throw new ModelError('bad_response', `${model}: chat completion failed: the answer has no choices`);
  }
  const content = choice.message.content ?? '';
  const toolCalls: ToolCall[] = (choice.message.tool_calls ?? []).flatMap((call) =>
    call.type === 'function'
      ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments ?? '' }]
      : [],
  );
  return {
    content,
    toolCalls,
    finishReason: toFinishReason(choice.finish_reason, toolCalls.length),
    usage: toUsage(completion.usage, request, content),
  };
}

/**
 * Gathers a stream's chunks into the final completion: text deltas are passed on as they come, tool
 * calls are assembled from their pieces (by index: the id and name come once, the arguments in parts).
 */
export function createStreamAccumulator(request: ChatRequest) {
  let content = '';
  let finish: string | null = null;
  let usage: ChatCompletionChunk['usage'] = null;
  const calls = new Map<number, ToolCall>();

  return {
    /** The text this chunk adds (empty when none). */
    add(chunk: ChatCompletionChunk): string {
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) return '';
      if (choice.finish_reason) finish = choice.finish_reason;
      for (const piece of choice.delta?.tool_calls ?? []) {
        const call = calls.get(piece.index) ?? { id: '', name: '', arguments: '' };
        if (piece.id) call.id = piece.id;
        if (piece.function?.name) call.name += piece.function.name;
        if (piece.function?.arguments) call.arguments += piece.function.arguments;
        calls.set(piece.index, call);
      }
      const text = choice.delta?.content ?? '';
      content += text;
      return text;
    },
    /** Whether the model said it finished (a stream cut short never does). */
    finished: (): boolean => finish !== null,
    completion(): ChatCompletion {
      const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
      return {
        content,
        toolCalls,
        finishReason: toFinishReason(finish, toolCalls.length),
        usage: toUsage(usage, request, content),
      };
    },
  };
}
