import { NOT_FOUND_ANSWER } from '../../models/extractiveChatModel.js';
import { GROUNDED_SYSTEM_PROMPT, groundedUserMessage } from '../../models/groundedPrompt.js';
import { localAnswer, planLocalCall } from '../localPlanner.js';
import type { PlanEnd, Planner, PlannerTurn } from '../planner.js';

/** Says `text` word by word, as a model streams: a client shows the answer as it comes either way. */
function sayInPieces(turn: PlannerTurn, text: string): void {
  for (const piece of text.split(/(?<=\s)/)) turn.say(piece);
}

/**
 * The embedded default: no model chooses; rules pick one tool for the message (localPlanner.ts) and
 * the answer is the tool's. A question about attached files is answered from them first, from the
 * knowledge base when they do not say (the extractive model quotes its sources, and says when none
 * is relevant).
 */
export const localModePlanner: Planner = {
  async plan(turn: PlannerTurn): Promise<PlanEnd> {
    const planned = planLocalCall(turn.message, new Set(turn.available.keys()));
    if (turn.attachments.length > 0 && planned?.name === 'query_knowledge') {
      const fromFiles = await turn.complete({
        messages: [
          { role: 'system', content: GROUNDED_SYSTEM_PROMPT },
          {
            role: 'user',
            content: groundedUserMessage(
              turn.message,
              turn.attachments.map((file) => ({ title: file.name, text: file.text })),
            ),
          },
        ],
        signal: turn.signal,
      });
      if (fromFiles.content !== NOT_FOUND_ANSWER) {
        sayInPieces(turn, fromFiles.content);
        return { finishReason: 'stop' };
      }
    }
    if (!planned) {
      turn.say('No tool is available to answer this.');
      return { finishReason: 'stop' };
    }
    const call = { id: turn.callId(), ...planned };
    if (!turn.autoExecuteTools) return { finishReason: 'tool_calls', proposed: [call] };
    const [result] = await turn.callTools([call]);
    sayInPieces(turn, localAnswer(planned, result!));
    return { finishReason: 'stop' };
  },
};
