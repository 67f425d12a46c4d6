import type { ParsedDocument } from '../model.js';
import { renderFullText } from '../render/renderFullText.js';
import { renderMarkdown } from '../render/renderMarkdown.js';
import { extractiveSummary } from './extractive.js';
import type { Summarizer } from './summarizer.js';

/** Above this input size summarisation is off (spec: 5 MB). */
export const SUMMARY_MAX_INPUT_BYTES = 5 * 1024 * 1024;
/** Above this many characters of content summarisation is off (spec: 50,000). */
export const SUMMARY_MAX_CONTENT_CHARS = 50_000;
export const DEFAULT_SUMMARY_WORDS = 250;

export interface LlmReadyOptions {
  /** `summarize_llm_ready`. */
  summarize: boolean;
  summarizer: Summarizer;
  signal: AbortSignal;
  /** Size of the uploaded file. */
  inputBytes: number;
  /** Characters of content (`content.char_count`); defaults to the length of the full text. */
  contentChars?: number;
  /** Longest summary, in words. */
  summaryWords?: number;
}

/**
 * `llm_ready` of `/parse`. When summarising is asked for and the input is at most 5 MB and 50,000
 * characters of content: the document's title as a `#` line, then the summary of its Markdown. Above
 * either limit, or when not asked for, the whole document as Markdown (`renderMarkdown`). A failing or
 * empty summarizer falls back to the local extractive summary; this function never rejects.
 */
export async function buildLlmReady(document: ParsedDocument, options: LlmReadyOptions): Promise<string> {
  const markdown = renderMarkdown(document);
  const contentChars =
    options.contentChars ?? renderFullText(document, { includeTables: true, includeImages: true }).length;
  if (
    !options.summarize ||
    options.inputBytes > SUMMARY_MAX_INPUT_BYTES ||
    contentChars > SUMMARY_MAX_CONTENT_CHARS
  ) {
    return markdown;
  }
  const maxWords = options.summaryWords ?? DEFAULT_SUMMARY_WORDS;
  let summary = '';
  try {
    summary = (
      await options.summarizer.summarize(markdown, {
        maxWords,
        signal: options.signal,
        language: document.metadata.language,
      })
    ).trim();
  } catch {
    // Fall through to the local summary: llm_ready must not fail because a model did.
  }
  if (!summary) summary = extractiveSummary(markdown, maxWords);
  if (!summary) return markdown;
  const title = document.metadata.title.trim();
  return title ? `# ${title}\n\n${summary}` : summary;
}
