import { availableParallelism } from 'node:os';
import { Worker as NodeWorker } from 'node:worker_threads';
import Tesseract from 'tesseract.js';
import { OCR_LANGUAGES, type OcrEngine, type OcrLanguage, type OcrResult } from '../context.js';
import { ParseError } from '../errors.js';
import { abortError, throwIfAborted } from '../abort.js';
import { prepareOcrImage } from './ocrInput.js';
import {
  preferArabicReading,
  PSM_BY_MODE,
  recognizeBest,
  worthArabicAlone,
  type PageSegMode,
} from './ocrPasses.js';
import { ensureTessdataDir } from './tessdata.js';
import { createPool, type Lease, type PoolStats } from './workerPool.js';
import { settleWithin } from '../../settleWithin.js';

export interface TesseractOcrOptions {
  /** Worker threads at most (each holds its own models, ~110 MB RSS). Default: CPU cores, at most 8. */
  workers?: number;
  /** Languages a new worker loads, in priority order. Default: all of `OCR_LANGUAGES`. */
  languages?: OcrLanguage[];
  /** Budget of one `recognize` once it has a worker (start-up included). Default 60 s. */
  timeoutMs?: number;
  /** A worker unused this long is terminated. Default 30 s. */
  idleMs?: number;
  /** Folder for the combined traineddata files. Default: one under `os.tmpdir()`. */
  tessdataDir?: string;
  /** Tesseract page segmentation mode. Default `3` (automatic), the best on our fixtures. */
  pageSegMode?: PageSegMode;
  /**
   * When the first reading finds fewer words than this, two more are tried (sparse text; fixed
   * threshold) and the one with the most words wins (see `recognizeBest`). Default 30; 0 turns the
   * retries off.
   */
  sparseRetryWords?: number;
  /** Starts the `timeoutMs` timer of a call; returns its cancel. Default `setTimeout` (tests drive it). */
  startTimer?: (onTimeout: () => void, ms: number) => () => void;
}

const realTimer = (onTimeout: () => void, ms: number): (() => void) => {
  const timer = setTimeout(onTimeout, ms);
  return () => clearTimeout(timer);
};

export type { PageSegMode } from './ocrPasses.js';

export interface TesseractOcr extends OcrEngine {
  /** The local folder traineddata is read from (never a URL: nothing is fetched). */
  readonly langPath: string;
  stats(): PoolStats;
}

interface WorkerHandle {
  worker: Tesseract.Worker;
  languages: string;
  /** Set by the job running on this worker: called when the thread dies under it. */
  onCrash: ((error: Error) => void) | null;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_IDLE_MS = 30_000;
/** Starting a worker (WebAssembly core + both models) takes ~0.3–1 s; this catches a hang. */
const START_TIMEOUT_MS = 30_000;

/**
 * OCR with tesseract.js, fully offline: traineddata comes from the `@tesseract.js-data/*` npm
 * packages through a local `langPath` (tesseract.js would otherwise fetch it from a CDN, and a failed
 * fetch used to crash the process). Workers are started lazily, at most `workers` at a time, and
 * terminated after `idleMs` idle or on `close()`. A page read mostly as Arabic with several models is
 * read again with the Arabic model alone, and the more confident reading is kept
 * (`worthArabicAlone`, `preferArabicReading`).
 *
 * tesseract.js has no cancellation: a job that times out or whose signal aborts gets its worker
 * terminated (which stops the WebAssembly computation) and the pool starts a fresh one on demand.
 */
export function createTesseractOcr(options: TesseractOcrOptions = {}): TesseractOcr {
  const size = Math.max(1, Math.floor(options.workers ?? Math.min(availableParallelism(), 8)));
  const startLanguages = languageKey(options.languages ?? OCR_LANGUAGES);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const startTimer = options.startTimer ?? realTimer;
  const pageSegMode = options.pageSegMode ?? '3';
  const sparseRetryWords = options.sparseRetryWords ?? 30;
  const langPath = ensureTessdataDir(options.tessdataDir);
  const running = new Set<(error: Error) => void>();
  let closed = false;

  const closedError = (): ParseError => new ParseError('aborted', 'the OCR engine was closed');

  const configure = async (worker: Tesseract.Worker): Promise<void> => {
    // debug_file keeps tesseract's chatter ("Estimating resolution as …") off the process output.
    await worker.setParameters({ tessedit_pageseg_mode: PSM_BY_MODE[pageSegMode], debug_file: '/dev/null' });
  };

  const start = async (): Promise<WorkerHandle> => {
    let started = false;
    let failStart: (error: Error) => void = () => undefined;
    const startFailed = new Promise<never>((_, reject) => {
      failStart = reject;
    });
    const creating = Tesseract.createWorker(startLanguages.split('+'), Tesseract.OEM.LSTM_ONLY, {
      langPath,
      gzip: true,
      cacheMethod: 'none',
      // Without a handler tesseract.js throws worker errors from a message listener (a crash); and
      // a failed language load never settles createWorker, so start-up failures are caught here.
      errorHandler: (error: unknown) => {
        if (!started) failStart(new Error(`OCR worker failed to start: ${String(error)}`));
      },
    });
    let worker: Tesseract.Worker;
    try {
      worker = await settleWithin(
        Promise.race([creating, startFailed]),
        START_TIMEOUT_MS,
        () => new Error('OCR worker did not start in time'),
      );
    } catch (error) {
      // A worker that comes up after all is not needed any more.
      void creating.then(
        (late) => late.terminate(),
        () => undefined,
      );
      throw error;
    }
    started = true;
    try {
      await configure(worker);
    } catch (error) {
      await worker.terminate();
      throw error;
    }
    const handle: WorkerHandle = { worker, languages: startLanguages, onCrash: null };
    const thread: unknown = (worker as unknown as { worker?: unknown }).worker;
    if (thread instanceof NodeWorker) {
      // An uncaught error in the thread is an 'error' event nobody listens to: that would kill us.
      thread.on('error', (error) => handle.onCrash?.(error));
      thread.on('exit', (code) => handle.onCrash?.(new Error(`OCR worker exited with code ${code}`)));
    }
    return handle;
  };

  const pool = createPool<WorkerHandle>({
    size,
    idleMs: options.idleMs ?? DEFAULT_IDLE_MS,
    create: start,
    destroy: async (handle) => {
      handle.onCrash = null;
      await handle.worker.terminate();
    },
    closedError,
  });

  const run = (lease: Lease<WorkerHandle>, image: Buffer, languages: string, signal: AbortSignal) =>
    new Promise<OcrResult>((resolve, reject) => {
      const handle = lease.resource;
      let settled = false;
      const finish = (healthy: boolean, outcome: () => void): void => {
        if (settled) return;
        settled = true;
        stopTimer();
        signal.removeEventListener('abort', onAbort);
        running.delete(cancel);
        handle.onCrash = null;
        if (healthy) lease.release();
        else lease.discard();
        outcome();
      };
      const cancel = (error: Error): void => finish(false, () => reject(error));
      const onAbort = (): void => cancel(abortError(signal));
      const stopTimer = startTimer(
        () => cancel(new ParseError('timeout', `OCR took longer than ${timeoutMs} ms`)),
        timeoutMs,
      );
      signal.addEventListener('abort', onAbort, { once: true });
      running.add(cancel);
      handle.onCrash = (error) =>
        cancel(new ParseError('corrupt_document', ocrMessage(error), { cause: error }));

      const useModels = async (key: string): Promise<void> => {
        if (handle.languages === key) return;
        await handle.worker.reinitialize(key, Tesseract.OEM.LSTM_ONLY);
        handle.languages = key;
        await configure(handle.worker);
      };
      const read = (): Promise<OcrResult> =>
        recognizeBest(handle.worker, image, { mode: pageSegMode, retryBelowWords: sparseRetryWords });
      const work = async (): Promise<OcrResult> => {
        await useModels(languages);
        const first = await read();
        if (!worthArabicAlone(languages, first)) return first;
        // The worker keeps the Arabic model; the next job that needs others reloads them.
        await useModels('ara');
        return preferArabicReading(first, await read());
      };
      work().then(
        (result) => finish(true, () => resolve(result)),
        (error: unknown) => cancel(recognitionError(error)),
      );
    });

  return {
    langPath,
    stats: () => pool.stats(),
    recognize: async (image, { languages, signal }) => {
      if (closed) throw closedError();
      throwIfAborted(signal);
      const key = languageKey(languages);
      const prepared = await prepareOcrImage(image);
      throwIfAborted(signal);
      const lease = await pool.acquire(signal);
      return run(lease, prepared, key, signal);
    },
    close: async () => {
      closed = true;
      for (const cancel of [...running]) cancel(closedError());
      await pool.close();
    },
  };
}

/** `eng+ara` style key; unknown codes are a programming error, not a document problem. */
function languageKey(languages: readonly OcrLanguage[]): string {
  const unique = [...new Set(languages)];
  if (unique.length === 0) throw new Error('OCR needs at least one language');
  for (const language of unique) {
    if (!OCR_LANGUAGES.includes(language)) throw new Error(`no OCR model for language "${language}"`);
  }
  return unique.join('+');
}

function recognitionError(error: unknown): ParseError {
  if (error instanceof ParseError) return error;
  const message = ocrMessage(error);
  const code = /\bOOM\b|out of memory|memory access/i.test(message) ? 'too_large' : 'corrupt_document';
  return new ParseError(code, message, { cause: error });
}

function ocrMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return `OCR failed: ${text.replace(/^Error:\s*/, '')}`;
}
