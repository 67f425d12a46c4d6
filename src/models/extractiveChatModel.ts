import { splitSentences } from '../text/sentences.js';
import type { ChatCompletion, ChatModel, ChatRequest, TokenUsage } from './chatModel.js';
import { NOT_FOUND_ANSWER, parseGroundedMessage } from './groundedPrompt.js';
import { stems } from './localEmbedder.js';
import { ModelError } from './modelError.js';
import { countTokens } from './tokens.js';

/** Sentences an answer quotes at most, and the least share of the question's words one must hold. */
const MAX_SENTENCES = 3;
const MIN_OVERLAP = 0.2;

/**
 * Answers a grounded question (see groundedPrompt.ts) by quoting the source sentences that share the
 * most of the question's word stems (rarer stems weigh more), each with its source number, in source
 * order. It invents nothing, and says so when no sentence is relevant.
 */
function answer({ messages, maxTokens }: ChatRequest): ChatCompletion {
  const input = messages.map((message) => message.content).join('\n');
  const last = [...messages].reverse().find((message) => message.role === 'user');
  const grounded = last ? parseGroundedMessage(last.content) : null;
  let content = NOT_FOUND_ANSWER;
  if (grounded) {
    const asked = new Set(stems(grounded.question));
    const documentFrequency = new Map<string, number>();
    const sentences = grounded.passages.flatMap((passage, source) =>
      splitSentences(passage.text.replace(/^#+ .*$/gm, ''))
        .map((text) => text.trim())
        .filter((text) => text.length > 0)
        .map((text, order) => {
          const terms = new Set(stems(text));
          for (const term of terms) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
          return { text, source, order, terms };
        }),
    );
    const weight = (term: string): number => 1 / Math.log(2 + (documentFrequency.get(term) ?? 0));
    const total = [...asked].reduce((sum, term) => sum + weight(term), 0);
    const scored = sentences
      .map((sentence) => ({
        ...sentence,
        score:
          total === 0
            ? 0
            : [...asked]
                .filter((term) => sentence.terms.has(term))
                .reduce((sum, term) => sum + weight(term), 0) / total,
      }))
      .filter((sentence) => sentence.score >= MIN_OVERLAP)
      .sort((a, b) => b.score - a.score)
      .slice(0, MAX_SENTENCES)
      .sort((a, b) => a.source - b.source || a.order - b.order);
    if (scored.length > 0)
      content = scored.map((sentence) => `${sentence.text} [${sentence.source + 1}]`).join(' ');
  }
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
