import type { ChatModel, TokenUsage } from '../models/chatModel.js';
import { GROUNDED_SYSTEM_PROMPT, groundedUserMessage, isAbstention } from '../models/groundedPrompt.js';
import type { SearchFilters } from './searchFilters.js';
import { secondsSince, type DenseUsed, type Search, type SearchHit, type SearchTiming } from './search.js';

export interface QuestionRequest {
  question: string;
  topK: number;
  initialK: number;
  /** null: the model's default. */
  temperature: number | null;
  /** Only passages of the documents these match. */
  filters?: SearchFilters;
  /** Collections the caller may not see. */
  hiddenCollections?: readonly string[];
  signal?: AbortSignal;
}

export interface AnswerTiming extends SearchTiming {
  retrievalTotal: number;
  contextFormatting: number;
  llmGeneration: number;
  total: number;
}

export interface Answer {
  question: string;
  answer: string;
  hits: SearchHit[];
  /** What the model was given: the numbered sources and the question. */
  context: string;
  timing: AnswerTiming;
  /** Which vector collection the search read, or why it was lexical only. */
  dense: DenseUsed;
  usage: TokenUsage;
  /** The answer says the sources do not hold it (or there were none): `hits` are the nearest passages. */
  abstained: boolean;
}

/** Characters of source text the model is given at most (the chunks are cut to share it). */
const MAX_CONTEXT_CHARS = 24_000;

/** Retrieval-augmented answers: search, number the passages, ask the chat model to answer from them. */
export function createAnswerer(deps: { search: Search; chatModel: ChatModel; now?: () => number }) {
  const now = deps.now ?? (() => performance.now());
  const seconds = secondsSince(now);

  return async function answer(request: QuestionRequest): Promise<Answer> {
    const started = now();
    const found = await deps.search({
      query: request.question,
      topK: request.topK,
      initialK: request.initialK,
      ...(request.filters ? { filters: request.filters } : {}),
      ...(request.hiddenCollections ? { hiddenCollections: request.hiddenCollections } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    const { timing, dense } = found;
    const hits = distinctPassages(found.hits);
    const retrievalTotal = seconds(started);

    let step = now();
    const share = Math.floor(MAX_CONTEXT_CHARS / Math.max(1, hits.length));
    const passages = hits.map((hit) => ({
      title: [hit.document.title, ...hit.chunk.sectionPath].filter(Boolean).join(' › '),
      text: hit.chunk.text.slice(0, share),
    }));
    const context = groundedUserMessage(request.question, passages);
    const contextFormatting = seconds(step);

    step = now();
    const completion = await deps.chatModel.complete({
      messages: [
        { role: 'system', content: GROUNDED_SYSTEM_PROMPT },
        { role: 'user', content: context },
      ],
      temperature: request.temperature,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    const llmGeneration = seconds(step);
    return {
      question: request.question,
      answer: completion.content,
      hits,
      context,
      usage: completion.usage,
      abstained: hits.length === 0 || isAbstention(completion.content),
      dense,
      timing: { ...timing, retrievalTotal, contextFormatting, llmGeneration, total: seconds(started) },
    };
  };
}

export type Answerer = ReturnType<typeof createAnswerer>;

/**
 * The hits with every passage once: a chunk whose text (white space aside) an earlier, better hit
 * already holds — the same passage stored in two documents, or repeated in one — is left out, so
 * that the sources of an answer are distinct passages and its numbers cite different text.
 */
export function distinctPassages(hits: readonly SearchHit[]): SearchHit[] {
  const seen = new Set<string>();
  return hits.filter((hit) => {
    const text = hit.chunk.text.replace(/\s+/g, ' ').trim();
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
}
