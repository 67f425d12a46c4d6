import type { Worker } from 'node:worker_threads';
import type { Logger } from '../../log.js';
import { ParseError } from '../errors.js';
import type { ParseJob, ParseJobEvent } from '../job.js';
import type { FromWorker, ServicesConfig, ToWorker } from './protocol.js';
import { startWorker } from '../../workerThreads.js';

export interface WorkerSlotsOptions {
  size: number;
  timeoutMs: number;
  maxMemoryMb: number;
  /**
   * A worker is replaced after a job that left its footprint this far above its baseline, after a
   * job estimated to cost `afterCostBytes` or more (absent: never for that reason), or after this
   * many jobs.
   */
  recycle: { aboveBytes: number; afterJobs: number; afterCostBytes?: number };
  services: ServicesConfig;
  workerUrl: URL;
  log: Logger;
  /** A worker became free (a job ended, or a worker was replaced): the pool may start the next job. */
  onIdle(): void;
}

/** Where a started job's events and outcome go; `end` or `fail` is called once, last. */
export interface JobSink {
  event(event: ParseJobEvent): void;
  end(): void;
  fail(error: unknown): void;
}

export interface StartedJob {
  /** Asks the worker to stop; it is terminated if it has not stopped a second later. */
  stop(reason: 'aborted' | 'timeout'): void;
  readonly settled: boolean;
}

/** The parse worker threads: each runs one job at a time. */
export interface WorkerSlots {
  /** Starts `job` on a free worker (starting one if the pool is not full); null when all are busy. */
  /** `cost`: the job's estimated memory, which may have its worker replaced after it. */
  start(job: ParseJob, sink: JobSink, cost?: number): StartedJob | null;
  warm(): Promise<void>;
  close(): Promise<void>;
  readonly workers: number;
  /** Workers not free: running a job, or reporting what their last job left. */
  readonly busy: number;
  /** Workers running a job. */
  readonly running: number;
  readonly recycled: number;
}

interface Slot {
  worker: Worker;
  job: Running | null;
  /** Between a job's end and the worker's `idle` report: not free yet (it may be recycled). */
  settling: boolean;
  /** Set once the worker is known dead (exited, killed, terminated or retired). */
  dead: boolean;
  jobs: number;
  /** Footprint once warm (or after its first job when it was never warmed). */
  baseline: number | null;
  /** The estimated cost of the job it ran last. */
  lastCost: number;
}

interface Running extends StartedJob {
  id: number;
  slot: Slot;
  sink: JobSink;
  settled: boolean;
  timer: NodeJS.Timeout;
  /** Grace period after a stop request, after which the worker is terminated. */
  killTimer: NodeJS.Timeout | null;
  stopReason: 'aborted' | 'timeout' | null;
}

const GRACE_MS = 1_000;

/**
 * Worker threads for parse jobs. A job that runs past the timeout, or is stopped, is asked to stop
 * and its worker terminated and replaced if it does not within a second, so a document stuck in a
 * parser's synchronous code cannot hold a core. A worker that dies (out of memory, crash) fails
 * only its own job. A worker a job left large is replaced before it takes another: ending the
 * thread is what gives a big document's heap back to the system.
 */
export function createWorkerSlots(options: WorkerSlotsOptions): WorkerSlots {
  const slots: Slot[] = [];
  let nextId = 1;
  let closed = false;
  let recycled = 0;
  /** Once warmed, the pool keeps its workers warm: a dead one is replaced by a warmed one at once. */
  let warmed = false;
  /**
   * What a warm worker holds, for a worker given a job before its own warm-up reported (a
   * replacement is often given the next job at once): its own first job must not become its baseline.
   */
  let warmFootprint: number | null = null;

  function warmSlot(slot: Slot): Promise<void> {
    return new Promise<void>((resolve) => {
      const onWarm = (message: FromWorker): void => {
        if (message.type !== 'warm') return;
        slot.worker.off('message', onWarm);
        slot.baseline = message.footprint;
        warmFootprint ??= message.footprint;
        resolve();
      };
      slot.worker.on('message', onWarm);
      slot.worker.once('exit', () => resolve());
      slot.worker.postMessage({ type: 'warm' } satisfies ToWorker);
    });
  }

  function spawn(): Slot {
    const worker = startWorker(options.workerUrl, {
      workerData: options.services,
      resourceLimits: { maxOldGenerationSizeMb: options.maxMemoryMb },
    });
    const slot: Slot = {
      worker,
      job: null,
      settling: false,
      dead: false,
      jobs: 0,
      baseline: null,
      lastCost: 0,
    };
    worker.on('message', (message: FromWorker) => onMessage(slot, message));
    worker.on('error', (error) => onDeath(slot, error));
    worker.on('exit', (code) => onDeath(slot, new Error(`parse worker exited with code ${code}`)));
    worker.unref();
    slots.push(slot);
    return slot;
  }

  /**
   * Ends a worker; a warmed pool starts a warm replacement at once, unless `replace` is false: then
   * one starts when a job needs it.
   */
  function retire(slot: Slot, replace = true): void {
    slot.dead = true;
    const index = slots.indexOf(slot);
    if (index !== -1) slots.splice(index, 1);
    void slot.worker.terminate();
    if (replace && warmed && !closed && slots.length < options.size) void warmSlot(spawn());
  }

  function settle(running: Running, outcome: { error: unknown } | null): void {
    if (running.settled) return;
    running.settled = true;
    clearTimeout(running.timer);
    if (running.killTimer) clearTimeout(running.killTimer);
    running.slot.job = null;
    if (!running.slot.dead) running.slot.settling = true;
    if (outcome) running.sink.fail(outcome.error);
    else running.sink.end();
  }

  /**
   * Replaces a worker whose last job left it large or was a large one, or that has run its quota of
   * jobs. A large job's heap stays committed after the worker's own collection (measured: a 4.8 MB
   * DOCX of 15 MB XML left a worker at 120 MB of heap, below the growth threshold, and three of them
   * on three workers held 360 MB); only ending the thread gives it back.
   */
  function recycleIfLarge(slot: Slot, footprint: number): void {
    slot.jobs += 1;
    slot.baseline ??= warmFootprint ?? footprint;
    const growth = footprint - slot.baseline;
    const largeJob = slot.lastCost >= (options.recycle.afterCostBytes ?? Number.POSITIVE_INFINITY);
    if (growth <= options.recycle.aboveBytes && !largeJob && slot.jobs < options.recycle.afterJobs) return;
    recycled += 1;
    options.log.info(
      {
        footprintMb: Math.round(footprint / 2 ** 20),
        growthMb: Math.round(growth / 2 ** 20),
        estimatedMb: Math.round(slot.lastCost / 2 ** 20),
        jobs: slot.jobs,
      },
      'recycling a parse worker',
    );
    // After a large job the next one is likely large too and waits for its memory anyway: a warm
    // replacement loading its parsers meanwhile would only add its footprint (~70 MB) to the peak.
    retire(slot, !largeJob);
  }

  function stopMessage(reason: 'aborted' | 'timeout'): string {
    return reason === 'timeout'
      ? `Parsing took longer than the ${Math.round(options.timeoutMs / 1000)} s allowed for one document`
      : 'Parsing stopped: the client went away';
  }

  function onMessage(slot: Slot, message: FromWorker): void {
    if (message.type === 'idle') {
      if (!slot.settling) return;
      slot.settling = false;
      recycleIfLarge(slot, message.footprint);
      options.onIdle();
      return;
    }
    const running = slot.job;
    if (message.type === 'warm' || !running || message.id !== running.id) return;
    if (message.type === 'event') {
      running.sink.event(message.event);
      return;
    }
    if (message.type === 'end') settle(running, null);
    else {
      // When the pool stopped the job, its own message (naming the limit) says why.
      const error = running.stopReason
        ? new ParseError(running.stopReason, stopMessage(running.stopReason))
        : message.code
          ? new ParseError(message.code, message.message)
          : new Error(message.message);
      settle(running, { error });
    }
  }

  function onDeath(slot: Slot, error: Error & { code?: string }): void {
    if (slot.dead) return;
    const running = slot.job;
    retire(slot);
    if (!running) {
      options.onIdle();
      return;
    }
    if (closed) {
      settle(running, { error: new ParseError('aborted', 'the server is shutting down') });
    } else if (running.stopReason) {
      settle(running, { error: new ParseError(running.stopReason, stopMessage(running.stopReason)) });
    } else if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      settle(running, {
        error: new ParseError(
          'too_large',
          `Parsing this document needs more than ${options.maxMemoryMb} MB of memory`,
        ),
      });
    } else {
      options.log.error({ err: error }, 'parse worker died during a job');
      settle(running, {
        error: new ParseError('corrupt_document', `The parser failed on this document (${error.message})`),
      });
    }
    options.onIdle();
  }

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

  return {
    start(job, sink, cost = 0) {
      if (closed) return null;
      const slot =
        slots.find((candidate) => !candidate.job && !candidate.settling && !candidate.dead) ??
        (slots.length < options.size ? spawn() : null);
      if (!slot) return null;
      const running: Running = {
        id: nextId++,
        slot,
        sink,
        settled: false,
        timer: setTimeout(() => stop(running, 'timeout'), options.timeoutMs),
        killTimer: null,
        stopReason: null,
        stop: (reason) => stop(running, reason),
      };
      slot.job = running;
      slot.lastCost = cost;
      // A private copy of the bytes, transferred: the caller's buffer may share memory with others.
      const bytes = new Uint8Array(job.bytes);
      slot.worker.postMessage({ type: 'job', id: running.id, job: { ...job, bytes } } satisfies ToWorker, [
        bytes.buffer,
      ]);
      return running;
    },
    async warm() {
      warmed = true;
      while (slots.length < options.size) spawn();
      await Promise.all(slots.map(warmSlot));
    },
    async close() {
      closed = true;
      await Promise.all(slots.splice(0).map((slot) => slot.worker.terminate()));
    },
    get workers() {
      return slots.length;
    },
    get busy() {
      return slots.filter((slot) => slot.job || slot.settling).length;
    },
    get running() {
      return slots.filter((slot) => slot.job).length;
    },
    get recycled() {
      return recycled;
    },
  };
}
