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
 * `idle` follows every job's `end` or `error`, once the worker has collected the job's garbage (after
 * the job's answer, so no caller waits for it): `footprint` is then what the job left behind (the
 * worker's V8 heap and the external memory it holds, such as buffers). `warm` carries the footprint
 * of a worker with its parsers loaded: its baseline. The pool recycles a worker whose footprint has
 * grown too far above it.
 */
export type FromWorker =
  | { type: 'event'; id: number; event: ParseJobEvent }
  | { type: 'end'; id: number }
  | { type: 'error'; id: number; code: ParseErrorCode | null; message: string }
  | { type: 'idle'; footprint: number }
  | { type: 'warm'; footprint: number };
