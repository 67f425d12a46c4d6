export {
  SummarizerError,
  isSummarizerError,
  type Summarizer,
  type SummarizeOptions,
  type SummarizerErrorCode,
} from './summarizer.js';
export { createExtractiveSummarizer, extractiveSummary } from './extractive.js';
export { createOpenAiSummarizer, type OpenAiSummarizerOptions } from './openAi.js';
export {
  buildLlmReady,
  DEFAULT_SUMMARY_WORDS,
  SUMMARY_MAX_CONTENT_CHARS,
  SUMMARY_MAX_INPUT_BYTES,
  type LlmReadyOptions,
} from './llmReady.js';
