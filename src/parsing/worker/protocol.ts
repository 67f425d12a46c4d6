import type { ParseErrorCode } from '../errors.js';
import type { ParseJob, ParseJobEvent } from '../job.js';

/** How a parse worker builds its models: plain data, since it crosses into the worker thread. */
export interface ServicesConfig {
  /** OCR threads per parse worker. */
  ocrWorkers: number;
  /** An OpenAI-compatible endpoint for image description and summaries; null: local, offline models. */
  openai: {
    baseUrl: string;
    apiKey: string;
    visionModel: string | null;
    llmModel: string | null;
    timeoutMs: number;
  } | null;
}

export type ToWorker =
  | { type: 'job'; id: number; job: ParseJob }
  | { type: 'abort'; id: number; reason: 'aborted' | 'timeout' }
  | { type: 'warm' };

export type FromWorker =
  | { type: 'event'; id: number; event: ParseJobEvent }
  | { type: 'end'; id: number }
  | { type: 'error'; id: number; code: ParseErrorCode | null; message: string }
  | { type: 'warm' };
