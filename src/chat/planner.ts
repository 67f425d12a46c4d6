import type { ToolCallRef } from '../domain/conversation/events.js';
import type { Logger } from '../log.js';
import type { ChatCompletion, ChatMessage, ChatRequest, ToolDefinition } from '../models/chatModel.js';
import type { ToolPolicy } from '../settings/definitions.js';
import type { Tool } from '../tools/registry.js';
import type { ReadAttachment } from './attachments.js';
import { otherConfirmer, type ToolResultData } from './turnEvents.js';

/** The tools a turn may use, by name, with their policies. */
export type AvailableTools = ReadonlyMap<string, { tool: Tool; policy: ToolPolicy }>;

/** What a turn gives the model: its messages (system prompt first) and the request's other fields. */
export interface TurnPrompt {
  system: string;
  messages: ChatMessage[];
  base: Omit<ChatRequest, 'messages'>;
  definitions: ToolDefinition[];
}

/**
 * A chat turn as a planner drives it. The turn stores and emits what the planner says and calls;
 * the planner decides what to ask the model and which tools to call.
 */
export interface PlannerTurn {
  message: string;
  attachments: readonly ReadAttachment[];
  autoExecuteTools: boolean;
  available: AvailableTools;
  maxToolRounds: number;
  signal: AbortSignal;
  log: Logger;
  /** The conversation so far as the model reads it (waits for the read models to hold the turn). */
  prompt(): Promise<TurnPrompt>;
  /** Asks the model, its text streamed to the turn as it comes; its tokens counted. */
  stream(request: ChatRequest): Promise<ChatCompletion>;
  /** Asks the model for a whole answer, not shown; its tokens counted. */
  complete(request: ChatRequest): Promise<ChatCompletion>;
  /** Says `text` as part of the answer. */
  say(text: string): void;
  /** What was said since the turn last stored a message (the text a model gave with its calls). */
  saidSinceStored(): string;
  /** Stores a round's calls, runs each, and stores and emits its result. */
  callTools(calls: ToolCallRef[]): Promise<ToolResultData[]>;
  /** A fresh id for a call the planner makes up (the model gave none). */
  callId(): string;
}

/** How a turn ended: answered, or with calls proposed to the client instead of run. */
export interface PlanEnd {
  finishReason: string;
  proposed?: ToolCallRef[];
}

/** How a turn chooses tools and answers: one strategy per tool-calling mode. */
export interface Planner {
  plan(turn: PlannerTurn): Promise<PlanEnd>;
}

/** A tool result as the model reads it back: JSON, cut to `maxChars` (6,000 by default). */
export function forModel(result: ToolResultData, maxChars = 6_000): string {
  const text = JSON.stringify({
    success: result.success,
    result: result.result,
    ...(result.error ? { error: result.error } : {}),
    ...(result.requires_confirmation
      ? {
          requires_confirmation: true,
          action_id: result.action_id,
          note: `waits for confirmation by ${otherConfirmer(result.approval) ?? 'the user'}`,
        }
      : {}),
  });
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}…`;
}
