import { createOpenAiClient, translateOpenAiError } from '../../models/openAiClient.js';
import { splitByWords } from '../../text/words.js';
import { SummarizerError, type Summarizer } from './summarizer.js';

export interface OpenAiSummarizerOptions {
  /** Base URL including `/v1` (OpenAI, vLLM, Ollama, llama.cpp server…). */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Time allowed for one request; past it the summary fails with `timeout` (no retry). */
  timeoutMs: number;
}

/** Arabic takes about two tokens a word with o200k; leave room for that and a little more. */
const TOKENS_PER_WORD = 2.5;

/**
 * A Summarizer backed by any OpenAI-compatible chat completions endpoint. One request, no retries (the
 * caller has a local fallback and a time budget); every failure becomes a `SummarizerError` —
 * `timeout`, `aborted`, `unavailable` (HTTP error, connection failure) or `empty`. The answer is cut
 * to `maxWords` words should the model overrun.
 */
export function createOpenAiSummarizer(options: OpenAiSummarizerOptions): Summarizer {
  const client = createOpenAiClient(options);
  return {
    async summarize(text, { maxWords, signal, language }) {
      if (signal.aborted) throw new SummarizerError('aborted', 'summary aborted');
      const words = Math.max(1, Math.floor(maxWords));
      let answer: string | null | undefined;
      try {
        const completion = await (
          await client()
        ).chat.completions.create(
          {
            model: options.model,
            temperature: 0.2,
            max_tokens: Math.ceil(words * TOKENS_PER_WORD) + 16,
            messages: [
              { role: 'system', content: systemPrompt(words, language) },
              { role: 'user', content: text },
            ],
          },
          { signal },
        );
        answer = completion.choices[0]?.message.content;
      } catch (error) {
        throw toSummarizerError(error, signal, options.timeoutMs);
      }
      const summary = (answer ?? '').trim();
      if (!summary) throw new SummarizerError('empty', 'the model returned an empty summary');
      return splitByWords(summary, words)[0] ?? summary;
    },
  };
}

function systemPrompt(maxWords: number, language: string | null): string {
  const inLanguage = language
    ? ` Write it in the language with ISO 639-1 code "${language}".`
    : ' Write it in the language of the document.';
  return (
    `You summarise documents so that a language model can use the summary as context. ` +
    `Give the document's subject, its main facts, figures, names and conclusions in at most ${maxWords} words.` +
    `${inLanguage} Answer with the summary only, as plain prose, without a preamble.`
  );
}

function toSummarizerError(error: unknown, signal: AbortSignal, timeoutMs: number): SummarizerError {
  const kind = translateOpenAiError(error).code;
  if (kind === 'timeout') {
    return new SummarizerError('timeout', `the summarizer did not answer within ${timeoutMs} ms`, {
      cause: error,
    });
  }
  if (kind === 'aborted' || signal.aborted) {
    return new SummarizerError('aborted', 'summary aborted', { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new SummarizerError('unavailable', `the summarizer failed: ${message}`, { cause: error });
}
