import { GROUNDED_SYSTEM_PROMPT, groundedUserMessage, isAbstention } from '../../models/groundedPrompt.js';
import { documentNamed, localAnswer, planLocal, type PlannedCall } from '../localPlanner.js';
import type { PlanEnd, Planner, PlannerTurn } from '../planner.js';
import { confirmsIt } from '../turnEvents.js';

/** Says `text` word by word, as a model streams: a client shows the answer as it comes either way. */
function sayInPieces(turn: PlannerTurn, text: string): void {
  for (const piece of text.split(/(?<=\s)/)) turn.say(piece);
}

/**
 * The embedded default: no model chooses; rules read the message (localPlanner.ts). A greeting is
 * answered directly; a deletion finds its document and proposes deleting it (a pending action);
 * anything else is one tool call whose result is the answer. A question about attached files is
 * answered from them first, from the knowledge base when they do not say (the extractive model
 * quotes its sources, and says when none is relevant).
 */
export const localModePlanner: Planner = {
  async plan(turn: PlannerTurn): Promise<PlanEnd> {
    const plan = planLocal(turn.message, new Set(turn.available.keys()));
    if (turn.attachments.length > 0 && plan?.kind === 'call' && plan.call.name === 'query_knowledge') {
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
      if (!isAbstention(fromFiles.content)) {
        sayInPieces(turn, fromFiles.content);
        return { finishReason: 'stop' };
      }
    }
    if (!plan) {
      turn.say('No tool is available to answer this.');
      return { finishReason: 'stop' };
    }
    if (plan.kind === 'answer') {
      sayInPieces(turn, plan.text);
      return { finishReason: 'stop' };
    }
    if (plan.kind === 'delete') return proposeDeletion(turn, plan.subject);
    return callAndSay(turn, plan.call);
  },
};

async function callAndSay(turn: PlannerTurn, planned: PlannedCall): Promise<PlanEnd> {
  const call = { id: turn.callId(), ...planned };
  if (!turn.autoExecuteTools) return { finishReason: 'tool_calls', proposed: [call] };
  const [result] = await turn.callTools([call]);
  sayInPieces(turn, localAnswer(planned, result!));
  return { finishReason: 'stop' };
}

/**
 * "Delete the document about X": a search for X (read-only, so it runs even when tools are only
 * proposed) names the document; its deletion is then called — a high-risk call, so a pending action
 * that runs once its owner confirms it — or proposed, when tools are not run.
 */
async function proposeDeletion(turn: PlannerTurn, subject: string): Promise<PlanEnd> {
  const search: PlannedCall = { name: 'search_knowledge', arguments: { query: subject, top_k: 5 } };
  const [found] = await turn.callTools([{ id: turn.callId(), ...search }]);
  if (!found?.success) {
    sayInPieces(turn, localAnswer(search, found!));
    return { finishReason: 'stop' };
  }
  const results = ((found.result ?? {}) as { results?: Array<{ doc_id: string; title?: string | null }> })
    .results;
  const document = documentNamed(subject, results ?? []);
  if (!document) {
    sayInPieces(turn, `I found no document about "${subject}", so nothing will be deleted.`);
    return { finishReason: 'stop' };
  }
  const call = { id: turn.callId(), name: 'delete_document', arguments: { doc_id: document.doc_id } };
  if (!turn.autoExecuteTools) return { finishReason: 'tool_calls', proposed: [call] };
  const [deletion] = await turn.callTools([call]);
  const named = document.title ? `"${document.title}" (${document.doc_id})` : document.doc_id;
  sayInPieces(
    turn,
    deletion?.requires_confirmation
      ? `The document ${named} will be deleted once ${confirmsIt(deletion.approval)}: action ${deletion.action_id}.`
      : localAnswer(call, deletion!),
  );
  return { finishReason: 'stop' };
}
