import type { ModelProbe } from './embedder.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
}

/** Tokens a call used: the model's own count, or the local tokenizer's. */
export interface TokenUsage {
  input: number;
  output: number;
  total: number;
}

export interface ChatRequest {
  messages: readonly ChatMessage[];
  /** null: the model's configured default. */
  temperature?: number | null;
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface ChatCompletion {
  content: string;
  usage: TokenUsage;
  finishReason: 'stop' | 'length';
}

/** A model that answers a conversation. */
export interface ChatModel {
  /** Honest: the remote model id, or the local method. */
  readonly name: string;
  complete(request: ChatRequest): Promise<ChatCompletion>;
  probe(): Promise<ModelProbe>;
}
