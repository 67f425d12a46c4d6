import type { ToolCallRef } from '../../domain/conversation/events.js';
import { parseToolChoice, toolChoiceFormat, toolChoiceInstructions } from '../jsonToolChoice.js';
import { forModel, type PlanEnd, type Planner, type PlannerTurn } from '../planner.js';

/**
 * For models that cannot emit tool calls: each round asks for a choice constrained to a JSON
 * schema (a tool and its arguments, or an answer), runs the chosen tool, and feeds its result back;
 * then the model answers in prose.
 */
export const jsonPlanner: Planner = {
  async plan(turn: PlannerTurn): Promise<PlanEnd> {
    const { system, messages, base, definitions } = await turn.prompt();
    const choosing = `${system}\n\n${toolChoiceInstructions(definitions)}`;
    for (let rounds = 0; rounds < turn.maxToolRounds && definitions.length > 0; rounds += 1) {
      const choice = await turn.complete({
        ...base,
        maxTokens: 256,
        messages: [{ role: 'system', content: choosing }, ...messages.slice(1)],
        responseFormat: toolChoiceFormat(definitions),
      });
      const parsed = parseToolChoice(choice.content);
      if (parsed.kind !== 'call') {
        if (parsed.kind === 'invalid')
          turn.log.warn({ reason: parsed.reason }, 'model ignored the tool-choice format');
        break;
      }
      const call: ToolCallRef = { id: turn.callId(), name: parsed.name, arguments: parsed.arguments };
      if (!turn.autoExecuteTools) return { finishReason: 'tool_calls', proposed: [call] };
      const [result] = await turn.callTools([call]);
      messages.push({
        role: 'assistant',
        content: JSON.stringify({ tool: call.name, arguments: call.arguments }),
      });
      messages.push({ role: 'user', content: `Result of ${call.name}:\n${forModel(result!)}` });
    }
    const answer = await turn.stream({ ...base, messages });
    return { finishReason: answer.finishReason };
  },
};
