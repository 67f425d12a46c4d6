import type { ToolCallRef } from '../../domain/conversation/events.js';
import { forModel, type PlanEnd, type Planner, type PlannerTurn } from '../planner.js';

/** The model chooses tools in the OpenAI `tools` wire format, for up to `maxToolRounds` rounds. */
export const nativePlanner: Planner = {
  async plan(turn: PlannerTurn): Promise<PlanEnd> {
    const { messages, base, definitions } = await turn.prompt();
    for (let rounds = 0; ; rounds += 1) {
      const last = rounds >= turn.maxToolRounds || definitions.length === 0;
      const completion = await turn.stream({
        ...base,
        messages,
        ...(last ? {} : { tools: definitions, toolChoice: 'auto' as const }),
      });
      if (completion.toolCalls.length === 0 || last) return { finishReason: completion.finishReason };
      const proposed = completion.toolCalls.map((call): ToolCallRef => ({
        id: call.id,
        name: call.name,
        arguments: parseArguments(call.arguments),
      }));
      if (!turn.autoExecuteTools) return { finishReason: 'tool_calls', proposed };
      messages.push({ role: 'assistant', content: turn.saidSinceStored(), toolCalls: completion.toolCalls });
      for (const result of await turn.callTools(proposed)) {
        messages.push({ role: 'tool', toolCallId: result.tool_call_id, content: forModel(result) });
      }
    }
  },
};

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Left to validation: the tool result tells the model its arguments were wrong.
  }
  return {};
}
