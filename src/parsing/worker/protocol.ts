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

/**
 * `footprint` is the worker's own memory (its V8 heap and the external memory it holds, such as
 * buffers) when it sends the message: after a job, what the job left behind; after warming up, its
 * baseline. The pool recycles a worker whose footprint has grown too far above its baseline.
 */
export type FromWorker =
  | { type: 'event'; id: number; event: ParseJobEvent }
  | { type: 'end'; id: number; footprint: number }
  | { type: 'error'; id: number; code: ParseErrorCode | null; message: string; footprint: number }
  | { type: 'warm'; footprint: number };
