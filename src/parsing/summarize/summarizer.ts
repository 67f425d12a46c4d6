/**
 * The Summarizer port: turns a document's text into a short summary for `llm_ready`.
 */
export interface SummarizeOptions {
  /** Upper bound on the summary's length, in words (see `countWords`). */
  maxWords: number;
  /** Cancels the work (client gone, per-request budget spent). */
  signal: AbortSignal;
  /** ISO 639-1 language of the text when known; the summary is written in it. */
  language: string | null;
}

/**
 * Summarises text. Implementations reject with a `SummarizerError` (never another error) so callers
 * can fall back on the local extractive summary.
 */
export interface Summarizer {
  summarize(text: string, options: SummarizeOptions): Promise<string>;
}

export type SummarizerErrorCode =
  /** The model did not answer within the configured time. */
  | 'timeout'
  /** The caller aborted. */
  | 'aborted'
  /** The endpoint failed (HTTP error, connection refused, malformed answer). */
  | 'unavailable'
  /** The model answered with nothing usable. */
  | 'empty';

export class SummarizerError extends Error {
  override readonly name = 'SummarizerError';
  constructor(
    readonly code: SummarizerErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isSummarizerError(error: unknown): error is SummarizerError {
  return error instanceof SummarizerError;
}
