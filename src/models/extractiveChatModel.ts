import { selectAnswer } from './answerSelection.js';
import type { ChatCompletion, ChatModel, ChatRequest, TokenUsage } from './chatModel.js';
import { NOT_FOUND_ANSWER, parseGroundedMessage } from './groundedPrompt.js';
import { ModelError } from './modelError.js';
import { countTokens } from './tokens.js';

/**
 * Answers a grounded question (see groundedPrompt.ts) by quoting the lines and sentences of the
 * sources that answer it (answerSelection.ts), each with its source number, in source order. It
 * invents nothing, and says so when nothing in the sources answers.
 */
function answer({ messages, maxTokens }: ChatRequest): ChatCompletion {
  const input = messages.map((message) => message.content).join('\n');
  const last = [...messages].reverse().find((message) => message.role === 'user');
  const grounded = last ? parseGroundedMessage(last.content) : null;
  const chosen = grounded ? selectAnswer(grounded.question, grounded.passages).units : [];
  const content =
    chosen.length === 0
      ? NOT_FOUND_ANSWER
      : chosen.map((unit) => `${unit.text} [${unit.source + 1}]`).join(' ');
  const cut = maxTokens === undefined ? content : withinTokens(content, maxTokens);
  const usage: TokenUsage = { input: countTokens(input), output: countTokens(cut), total: 0 };
  usage.total = usage.input + usage.output;
  return { content: cut, toolCalls: [], usage, finishReason: cut === content ? 'stop' : 'length' };
}

/** The longest run of `text`'s opening words within `maxTokens` (by the local estimate), as a model stops. */
function withinTokens(text: string, maxTokens: number): string {
  if (countTokens(text) <= maxTokens) return text;
  const pieces = text.split(/(?<=\s)/);
  let kept = '';
  for (const piece of pieces) {
    if (countTokens(kept + piece) > maxTokens) break;
    kept += piece;
  }
  return kept.trimEnd();
}

/** It calls no tools (as a model may choose) but cannot be made to, nor to follow a JSON schema. */
function refuseWhatItCannotDo(request: ChatRequest): void {
  request.signal?.throwIfAborted();
  if (request.responseFormat) {
    throw new ModelError(
      'unsupported',
      'local-extractive cannot answer in a JSON schema: configure LLM_MODEL',
    );
  }
  if (request.toolChoice && request.toolChoice !== 'auto' && request.toolChoice !== 'none') {
    throw new ModelError('unsupported', 'local-extractive cannot call tools: configure LLM_MODEL');
  }
}

/**
 * The embedded default: extractive answers with numbered citations (see `answer`). Any
 * OpenAI-compatible chat model replaces it. Streaming yields the same answer word by word.
 */
export function createExtractiveChatModel(): ChatModel {
  return {
    name: 'local-extractive',
    async complete(request) {
      refuseWhatItCannotDo(request);
      return answer(request);
    },
    async *stream(request) {
      refuseWhatItCannotDo(request);
      const completion = answer(request);
      for (const piece of completion.content.split(/(?<=\s)/)) {
        request.signal?.throwIfAborted();
        yield { type: 'delta', content: piece };
      }
      yield { type: 'done', completion };
    },
    async probe() {
      return { healthy: true, reason: null };
    },
  };
}
