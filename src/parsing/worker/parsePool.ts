import { Worker } from 'node:worker_threads';
import type { Logger } from '../../log.js';
import { ParseError } from '../errors.js';
import type { ParseJob, ParseJobEvent } from '../job.js';
import { createChannel, type Channel } from './channel.js';
import type { FromWorker, ServicesConfig, ToWorker } from './protocol.js';

export interface ParsePoolOptions {
  /** Worker threads (each parses one document at a time). */
  size: number;
  /** Longest a document may take, from the moment a worker starts on it. */
  timeoutMs: number;
  /** Heap limit of each worker: a document needing more fails alone instead of taking the process down. */
  maxMemoryMb: number;
  /** Jobs allowed to wait for a free worker; beyond that, `run` rejects at once with `PoolBusyError`. */
  maxQueue: number;
  services: ServicesConfig;
  log: Logger;
}

/** Parses documents in worker threads. */
export interface ParsePool {
  /** The job's events; throws a `ParseError` when the document cannot be parsed, times out, or `signal` aborts. */
  run(job: ParseJob, signal: AbortSignal): AsyncIterable<ParseJobEvent>;
  /** Starts the workers and loads the parsers, so the first request does not pay for it. */
  warm(): Promise<void>;
  close(): Promise<void>;
}

export class PoolBusyError extends Error {
  override readonly name = 'PoolBusyError';
}

interface Slot {
  worker: Worker;
  job: Running | null;
  /** Set once the worker is known dead (exited, killed or terminated). */
  dead: boolean;
}

interface Running {
  id: number;
  channel: Channel<ParseJobEvent>;
  slot: Slot;
  timer: NodeJS.Timeout;
  /** Grace period after an abort request, after which the worker is terminated. */
  killTimer: NodeJS.Timeout | null;
  settled: boolean;
  stopReason: 'aborted' | 'timeout' | null;
}

interface Waiting {
  job: ParseJob;
  channel: Channel<ParseJobEvent>;
  signal: AbortSignal;
  start: (running: Running) => void;
}

const GRACE_MS = 1_000;
const runningFromSources = import.meta.url.endsWith('.ts');
const workerUrl = new URL(runningFromSources ? './parseWorker.ts' : './parseWorker.js', import.meta.url);

/**
 * Compiled builds start the worker from its JavaScript file. From TypeScript sources (tests, tsx)
 * a worker cannot load a .ts entry itself, so a bootstrap registers tsx's loader first.
 */
function newWorker(options: ConstructorParameters<typeof Worker>[1]): Worker {
  if (!runningFromSources) return new Worker(workerUrl, options);
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(workerUrl.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/**
 * A pool of parse worker threads. Each job runs on one worker; its bytes are transferred, not
 * copied. A job that runs past the timeout, or whose client goes away, is asked to stop, and its
 * worker is terminated and replaced if it does not stop within a second — so a document stuck in a
 * parser's synchronous code cannot hold a core. A worker that dies (out of memory, crash) fails only
 * its own job.
 */
export function createParsePool(options: ParsePoolOptions): ParsePool {
  const slots: Slot[] = [];
  const waiting: Waiting[] = [];
  let nextId = 1;
  let closed = false;
  /** Once warmed, the pool keeps its workers warm: a dead one is replaced by a warmed one at once. */
  let warmed = false;

  function warmSlot(slot: Slot): Promise<void> {
    return new Promise<void>((resolve) => {
      const onWarm = (message: FromWorker): void => {
        if (message.type !== 'warm') return;
        slot.worker.off('message', onWarm);
        resolve();
      };
      slot.worker.on('message', onWarm);
      slot.worker.once('exit', () => resolve());
      slot.worker.postMessage({ type: 'warm' } satisfies ToWorker);
    });
  }

  function spawn(): Slot {
    const worker = newWorker({
      workerData: options.services,
      resourceLimits: { maxOldGenerationSizeMb: options.maxMemoryMb },
    });
    const slot: Slot = { worker, job: null, dead: false };
    worker.on('message', (message: FromWorker) => onMessage(slot, message));
    worker.on('error', (error) => onDeath(slot, error));
    worker.on('exit', (code) => onDeath(slot, new Error(`parse worker exited with code ${code}`)));
    worker.unref();
    slots.push(slot);
    return slot;
  }

  function finish(running: Running, outcome: { error: unknown } | null): void {
    if (running.settled) return;
    running.settled = true;
    clearTimeout(running.timer);
    if (running.killTimer) clearTimeout(running.killTimer);
    if (outcome) running.channel.fail(outcome.error);
    else running.channel.end();
    running.slot.job = null;
    schedule();
  }

  function onMessage(slot: Slot, message: FromWorker): void {
    const running = slot.job;
    if (message.type === 'warm' || !running || message.id !== running.id) return;
    if (message.type === 'event') running.channel.push(message.event);
    else if (message.type === 'end') finish(running, null);
    else {
      // When the pool stopped the job, its own message (naming the limit) says why.
      const error = running.stopReason
        ? new ParseError(running.stopReason, stopMessage(running.stopReason))
        : message.code
          ? new ParseError(message.code, message.message)
          : new Error(message.message);
      finish(running, { error });
    }
  }

  function onDeath(slot: Slot, error: Error & { code?: string }): void {
    if (slot.dead) return;
    slot.dead = true;
    slots.splice(slots.indexOf(slot), 1);
    const running = slot.job;
    if (running) {
      if (running.stopReason) {
        finish(running, { error: new ParseError(running.stopReason, stopMessage(running.stopReason)) });
      } else if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        finish(running, {
          error: new ParseError(
            'too_large',
            `Parsing this document needs more than ${options.maxMemoryMb} MB of memory`,
          ),
        });
      } else {
        options.log.error({ err: error }, 'parse worker died during a job');
        finish(running, {
          error: new ParseError('corrupt_document', `The parser failed on this document (${error.message})`),
        });
      }
    }
    void slot.worker.terminate();
    if (warmed && !closed && slots.length < options.size) void warmSlot(spawn());
    schedule();
  }

  function stopMessage(reason: 'aborted' | 'timeout'): string {
    return reason === 'timeout'
      ? `Parsing took longer than the ${Math.round(options.timeoutMs / 1000)} s allowed for one document`
      : 'Parsing stopped: the client went away';
  }

  /** Asks the worker to stop the job; terminates it if it has not stopped after the grace period. */
  function stop(running: Running, reason: 'aborted' | 'timeout'): void {
    if (running.settled || running.stopReason) return;
    running.stopReason = reason;
    running.slot.worker.postMessage({ type: 'abort', id: running.id, reason } satisfies ToWorker);
    running.killTimer = setTimeout(() => {
      if (running.settled) return;
      options.log.warn({ reason }, 'parse worker did not stop in time; terminating it');
      onDeath(running.slot, new Error(`terminated (${reason})`));
    }, GRACE_MS);
  }

  function schedule(): void {
    while (waiting.length > 0 && !closed) {
      const free =
        slots.find((slot) => !slot.job && !slot.dead) ?? (slots.length < options.size ? spawn() : null);
      if (!free) return;
      const next = waiting.shift()!;
      if (next.signal.aborted) {
        next.channel.fail(new ParseError('aborted', stopMessage('aborted')));
        continue;
      }
      const running: Running = {
        id: nextId++,
        channel: next.channel,
        slot: free,
        timer: setTimeout(() => stop(running, 'timeout'), options.timeoutMs),
        killTimer: null,
        settled: false,
        stopReason: null,
      };
      free.job = running;
      // A private copy of the bytes, transferred: the caller's buffer may share memory with others.
      const bytes = new Uint8Array(next.job.bytes);
      free.worker.postMessage(
        { type: 'job', id: running.id, job: { ...next.job, bytes } } satisfies ToWorker,
        [bytes.buffer],
      );
      next.start(running);
    }
  }

  return {
    run(job, signal) {
      if (closed) throw new PoolBusyError('the parse pool is closed');
      if (waiting.length >= options.maxQueue)
        throw new PoolBusyError(`${waiting.length} documents are waiting to be parsed`);
      const channel = createChannel<ParseJobEvent>();
      let running: Running | null = null;
      const onAbort = (): void => {
        if (running) stop(running, 'aborted');
        else channel.fail(new ParseError('aborted', stopMessage('aborted')));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      waiting.push({ job, channel, signal, start: (started) => (running = started) });
      schedule();
      return {
        async *[Symbol.asyncIterator]() {
          try {
            yield* channel;
          } finally {
            signal.removeEventListener('abort', onAbort);
            // The consumer stopped early (e.g. the response ended): stop the work too.
            if (running && !running.settled) stop(running, 'aborted');
          }
        },
      };
    },
    async warm() {
      warmed = true;
      while (slots.length < options.size) spawn();
      await Promise.all(slots.map(warmSlot));
    },
    async close() {
      closed = true;
      for (const next of waiting.splice(0))
        next.channel.fail(new ParseError('aborted', 'the server is shutting down'));
      await Promise.all(slots.splice(0).map((slot) => slot.worker.terminate()));
    },
  };
}
