import { CONVERSATION_MESSAGES, type MessageView } from '../projections/conversationsProjection.js';
import { isAbstention } from '../models/groundedPrompt.js';
import type { ReadModels } from '../projections/readModels.js';
import type { ApprovalPolicy } from '../domain/action/events.js';

export interface TokensUsed {
  input: number;
  output: number;
  total: number;
}

/** Who must confirm a pending action other than its requester, in words (null: the requester). */
export function otherConfirmer(approval: ApprovalPolicy | undefined): string | null {
  if (approval === 'admin') return 'an administrator';
  if (approval === 'other_user') return 'another user';
  return null;
}

/** "you confirm it", or who else must: the end of the sentence the assistant says of a pending action. */
export function confirmsIt(approval: ApprovalPolicy | undefined): string {
  const other = otherConfirmer(approval);
  return other ? `${other} confirms it` : 'you confirm it';
}

/** A tool call as a chat answer reports it, whether it ran, waits for confirmation, or was only proposed. */
export interface TurnToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** `proposed`: not run (auto_execute_tools false); `pending_confirmation`: a pending action. */
  status: 'executed' | 'failed' | 'pending_confirmation' | 'proposed';
}

/** What `tool_result` carries: the `execute_tool` result fields, with the call they answer. */
export interface ToolResultData {
  tool_call_id: string;
  name: string;
  success: boolean;
  result: unknown;
  execution_time_ms: number;
  error?: { type: string; message: string };
  requires_confirmation?: boolean;
  action_id?: string;
  /** Who confirms the pending action (as `execute_tool` answers it). */
  approval?: ApprovalPolicy;
  /** The `tool` task that ran the call (as `execute_tool` answers it). */
  task_id?: string;
}

/**
 * A document a turn's answer drew on, with its best passage (the one of its best score) when the
 * tool gave one: its chunk, section path, pages and an excerpt with offsets in the chunk.
 */
export interface Citation {
  doc_id: string;
  title: string | null;
  score: number;
  chunk_id?: string;
  section_path?: string[];
  page_start?: number;
  page_end?: number;
  excerpt?: { text: string; start: number; end: number };
}

export interface TurnDone {
  conversation_id: string;
  message_id: string;
  tokens_used: TokensUsed;
  finish_reason: string;
  tool_calls: TurnToolCall[];
  citations: Citation[];
  /** The turn's answer says the documents do not hold one (additive to the spec). */
  abstained: boolean;
}

/** Whether what a turn said is an abstention: text that says the documents do not hold the answer. */
export const abstainedIn = (said: string): boolean => said.trim() !== '' && isAbstention(said);

/**
 * What a chat turn emits, in order, as `stream_ai_response` sends it: `content` deltas,
 * `tool_start`/`tool_result` pairs (one call at a time), then `done` or `error`.
 */
export type TurnEvent =
  | { event: 'content'; data: { content: string } }
  | { event: 'tool_start'; data: { tool_call_id: string; name: string; arguments: Record<string, unknown> } }
  | { event: 'tool_result'; data: ToolResultData }
  | { event: 'done'; data: TurnDone }
  | { event: 'error'; data: { error: string; detail: string; message_id: string } };

/**
 * How far into a turn a client has read, counted in units: one per character of content (UTF-16
 * code units) and one per other event. Content cut anywhere resumes exactly there, so a resumed
 * stream has neither gaps nor repeats whatever deltas the first one was cut into.
 */
export function unitsOf(event: TurnEvent): number {
  return event.event === 'content' ? event.data.content.length : 1;
}

/** An SSE event id: the conversation, the sequence of the turn's user message, and units read. */
export interface TurnCursor {
  conversationId: string;
  turnSequence: number;
  units: number;
}

export function formatCursor(cursor: TurnCursor): string {
  return `${cursor.conversationId}:${cursor.turnSequence}:${cursor.units}`;
}

/** The cursor in a `Last-Event-ID`, or null when it is not one of ours. */
export function parseCursor(value: string | undefined): TurnCursor | null {
  const match = /^([A-Za-z0-9_-]{1,128}):([1-9][0-9]{0,9}):(0|[1-9][0-9]{0,12})$/.exec(value?.trim() ?? '');
  if (!match) return null;
  return { conversationId: match[1]!, turnSequence: Number(match[2]), units: Number(match[3]) };
}

/** The events after `units` of `events`, a content event cut where the client stopped reading. */
export function eventsAfter(events: readonly TurnEvent[], units: number): TurnEvent[] {
  const rest: TurnEvent[] = [];
  let seen = 0;
  for (const event of events) {
    const size = unitsOf(event);
    if (seen >= units) rest.push(event);
    else if (event.event === 'content' && seen + size > units) {
      rest.push({ event: 'content', data: { content: event.data.content.slice(units - seen) } });
    }
    seen += size;
  }
  return rest;
}

/** The tool message's content: the `tool_result` data as JSON, so a replay sends it as it was. */
export function toolMessageContent(result: ToolResultData): string {
  return JSON.stringify(result);
}

function parseToolResult(message: MessageView): ToolResultData {
  try {
    const parsed = JSON.parse(message.content) as ToolResultData;
    if (parsed && typeof parsed === 'object' && typeof parsed.tool_call_id === 'string') return parsed;
  } catch {
    // A tool message not written by a chat turn: answered from its reference below.
  }
  return {
    tool_call_id: message.toolResult?.toolCallId ?? '',
    name: message.toolResult?.name ?? '',
    success: message.toolResult?.success ?? false,
    result: message.content,
    execution_time_ms: 0,
  };
}

/**
 * A turn's events rebuilt from its stored messages (the user message excluded), in the order the
 * turn emitted them; `ended` once its last message is among them. The same function serves a client
 * that resumes after the turn's process has gone.
 */
export function turnEventsFromMessages(
  conversationId: string,
  messages: readonly MessageView[],
): { events: TurnEvent[]; ended: boolean } {
  const events: TurnEvent[] = [];
  const calls = new Map<string, { name: string; arguments: Record<string, unknown> }>();
  const allCalls: TurnToolCall[] = [];
  const citations: Citation[] = [];
  let said = '';
  for (const message of messages) {
    if (message.role === 'assistant') {
      if (message.content) events.push({ event: 'content', data: { content: message.content } });
      said += message.content;
      for (const call of message.toolCalls ?? []) {
        calls.set(call.id, { name: call.name, arguments: call.arguments });
        allCalls.push({ ...call, status: 'proposed' });
      }
    } else if (message.role === 'tool') {
      const result = parseToolResult(message);
      const call = calls.get(result.tool_call_id);
      events.push({
        event: 'tool_start',
        data: {
          tool_call_id: result.tool_call_id,
          name: call?.name ?? result.name,
          arguments: call?.arguments ?? {},
        },
      });
      events.push({ event: 'tool_result', data: result });
      const listed = allCalls.find((item) => item.id === result.tool_call_id);
      if (listed) listed.status = callStatus(result);
      citations.push(...citationsOf(result));
    }
    const end = message.turnEnd;
    if (!end) continue;
    if (end.error) {
      events.push({
        event: 'error',
        data: { error: end.error.type, detail: end.error.message, message_id: message.messageId },
      });
    } else {
      events.push({
        event: 'done',
        data: {
          conversation_id: conversationId,
          message_id: message.messageId,
          tokens_used: end.tokensUsed,
          finish_reason: end.finishReason,
          tool_calls: allCalls,
          citations: uniqueCitations(citations),
          abstained: abstainedIn(said),
        },
      });
    }
    return { events, ended: true };
  }
  return { events, ended: false };
}

export function callStatus(result: ToolResultData): TurnToolCall['status'] {
  if (result.requires_confirmation) return 'pending_confirmation';
  return result.success ? 'executed' : 'failed';
}

/** The sources a knowledge tool's result names. */
export function citationsOf(result: ToolResultData): Citation[] {
  const value = result.result as { sources?: unknown; results?: unknown } | null;
  if (!value || typeof value !== 'object') return [];
  const listed = Array.isArray(value.sources)
    ? value.sources
    : Array.isArray(value.results)
      ? value.results
      : [];
  return listed.flatMap((item: unknown): Citation[] => {
    const source = item as Partial<Record<keyof Citation, unknown>>;
    if (typeof source?.doc_id !== 'string') return [];
    const excerpt = source.excerpt as Citation['excerpt'] | undefined;
    return [
      {
        doc_id: source.doc_id,
        title: typeof source.title === 'string' ? source.title : null,
        score: typeof source.score === 'number' ? source.score : 0,
        ...(typeof source.chunk_id === 'string' ? { chunk_id: source.chunk_id } : {}),
        ...(Array.isArray(source.section_path) ? { section_path: source.section_path.map(String) } : {}),
        ...(typeof source.page_start === 'number' ? { page_start: source.page_start } : {}),
        ...(typeof source.page_end === 'number' ? { page_end: source.page_end } : {}),
        ...(excerpt && typeof excerpt.text === 'string' ? { excerpt } : {}),
      },
    ];
  });
}

/** One citation per document, with its best-scored passage, in first-cited order. */
export function uniqueCitations(citations: readonly Citation[]): Citation[] {
  const byDoc = new Map<string, Citation>();
  for (const citation of citations) {
    const known = byDoc.get(citation.doc_id);
    if (!known || citation.score > known.score) byDoc.set(citation.doc_id, { ...citation });
  }
  const order = [...new Set(citations.map((citation) => citation.doc_id))];
  return order.map((docId) => byDoc.get(docId)!);
}

/**
 * The tasks that ran a conversation's tool calls. Their inputs and results hold what the
 * conversation said (a question, what it found), so purging the conversation purges them too.
 */
export async function toolTaskIdsOf(readModels: ReadModels, conversationId: string): Promise<string[]> {
  const messages = await readModels.find<MessageView>(CONVERSATION_MESSAGES, {
    filter: { conversationId, role: 'tool' },
    limit: 100_000,
  });
  return [...new Set(messages.flatMap((message) => parseToolResult(message).task_id ?? []))];
}
