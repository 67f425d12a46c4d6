import type { ModelProbe } from './embedder.js';

/** A tool the model may call: a name, what it does, and a JSON schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Readonly<Record<string, unknown>>;
}

/**
 * A call the model asked for. `arguments` is the JSON text the model wrote, unparsed: small models
 * write broken JSON, and the caller decides what to do with it (validate, repair, refuse).
 */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  /** `images`: data or https URIs, for a model that accepts images (sent as image parts). */
  | { role: 'user'; content: string; images?: readonly string[] }
  /** An assistant turn; `toolCalls` when it asked for tools (its content may then be empty). */
  | { role: 'assistant'; content: string; toolCalls?: readonly ToolCall[] }
  /** The result of one tool call, answering the call with `toolCallId`. */
  | { role: 'tool'; content: string; toolCallId: string };

/** Tokens a call used: the model's own count, or the local tokenizer's. */
export interface TokenUsage {
  input: number;
  output: number;
  total: number;
}

/** The answer must be JSON valid against `schema` (the model is constrained to it where it can be). */
export interface ResponseFormat {
  /** Letters, digits, `_` and `-`: some servers use it as the grammar's name. */
  name: string;
  schema: Readonly<Record<string, unknown>>;
  /**
   * Ask the server to hold the answer to the schema exactly (default true). OpenAI's strict mode
   * needs every property required and `additionalProperties: false`; grammar-based servers
   * (llama.cpp, vLLM) constrain either way.
   */
  strict?: boolean;
}

export interface ChatRequest {
  messages: readonly ChatMessage[];
  /** null or absent: the model's configured default. */
  temperature?: number | null;
  /** Most tokens to generate; absent: the adapter's default. Reaching it ends with `length`. */
  maxTokens?: number;
  tools?: readonly ToolDefinition[];
  /** `auto` (default when tools are given), `none`, `required`, or one tool by name. */
  toolChoice?: 'auto' | 'none' | 'required' | { name: string };
  responseFormat?: ResponseFormat;
  signal?: AbortSignal;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChatCompletion {
  content: string;
  /** Empty unless the model asked for tools (then `finishReason` is `tool_calls`). */
  toolCalls: ToolCall[];
  usage: TokenUsage;
  finishReason: FinishReason;
}

/**
 * What a streaming answer yields: text deltas as they come, then exactly one `done` carrying the
 * whole completion (content, tool calls, usage, finish reason). A stream that fails throws instead
 * of yielding `done`; text already yielded stays yielded.
 */
export type ChatStreamEvent =
  { type: 'delta'; content: string } | { type: 'done'; completion: ChatCompletion };

/** A model that answers a conversation. */
export interface ChatModel {
  /** Honest: the remote model id, or the local method. */
  readonly name: string;
  complete(request: ChatRequest): Promise<ChatCompletion>;
  /** The same answer as `complete`, delivered as it is generated. */
  stream(request: ChatRequest): AsyncIterable<ChatStreamEvent>;
  probe(): Promise<ModelProbe>;
}
