import type { Logger } from '../../log.js';
import type { ParseLimits } from '../context.js';
import { ParseError } from '../errors.js';
import type { ParseJob, ParseJobEvent } from '../job.js';
import { COST_MODEL } from '../memory/costModel.js';
import { estimateParseCost, megabytes, type ParseCost } from '../memory/estimateCost.js';
import { createChannel, type Channel } from './channel.js';
import {
  collectionOnGrowth,
  createMainThreadCollection,
  eventLoopBusySince,
} from './mainThreadCollection.js';
import { createMemoryBudget } from './memoryBudget.js';
import { PoolBusyError } from './poolBusyError.js';
import type { ServicesConfig } from './protocol.js';
import { createWorkerSlots, type StartedJob } from './workerSlots.js';
import { PARSE_WORKER_URL } from './workerThread.js';

export { PoolBusyError };

export interface ParsePoolOptions {
  /** Worker threads (each parses one document at a time). */
  size: number;
  /** Longest a document may take, from the moment a worker starts on it. */
  timeoutMs: number;
  /** Heap limit of each worker: a document needing more fails alone instead of taking the process down. */
  maxMemoryMb: number;
  /** Jobs allowed to wait for memory or a worker; beyond that, `PoolBusyError`. */
  maxQueue: number;
  /** Longest a job may wait for memory or a worker before it gets `PoolBusyError`. */
  maxQueueWaitMs: number;
  /**
   * Memory all jobs running at once may reserve. Each job reserves its estimated cost before it
   * starts; a job whose estimate alone is larger is refused at once (`too_large`).
   */
  memoryBudgetBytes: number;
  /** When a worker is replaced (see `WorkerSlotsOptions.recycle`). */
  recycle: { aboveBytes: number; afterJobs: number; afterCostBytes?: number };
  /** Table caps every job gets (the process's configuration), whatever its caller passed. */
  tableCaps: Pick<ParseLimits, 'maxRows' | 'maxRowFields' | 'maxFieldChars'>;
  services: ServicesConfig;
  log: Logger;
  /** The cost estimate (tests pass their own); `estimateParseCost` by default. */
  estimateCost?: (job: ParseJob) => Promise<ParseCost>;
  /** The worker's entry point (tests pass a stand-in); the parse worker by default. */
  workerUrl?: URL;
}

/** One job's events, and when it started. */
export interface ParseRun extends AsyncIterable<ParseJobEvent> {
  /**
   * Settles once the job has its memory and a worker; rejects when it never will: refused by its
   * estimate (`ParseError` `too_large`), the queue full or waited on too long (`PoolBusyError`), the
   * caller gone (`aborted`), or its format refused. A caller that must answer with a status before
   * streaming waits for it; iterating alone also reports these errors.
   */
  readonly started: Promise<void>;
  /**
   * Gives back the job's memory reservation when the run was asked to hold it (`holdReservation`):
   * once, whenever called; nothing otherwise. A held run keeps it past the parse, until its caller
   * has done what it does with the result.
   */
  releaseReservation(): void;
}

export interface RunOptions {
  /**
   * Keep the job's reservation when the parse ends, until `releaseReservation`: for a caller whose
   * work on the result (chunking, embedding, recording an ingested document) takes memory of the
   * same order, so that the next large document waits for it too. The worker is free at once.
   */
  holdReservation?: boolean;
}

/** Parses documents in worker threads. */
export interface ParsePool {
  /** The job's events; throws a `ParseError` when the document cannot be parsed, times out, or `signal` aborts. */
  run(job: ParseJob, signal: AbortSignal, options?: RunOptions): ParseRun;
  /** Starts the workers and loads the parsers, so the first request does not pay for it. */
  warm(): Promise<void>;
  close(): Promise<void>;
  /** What the pool holds now: for logs, tests and health. */
  stats(): ParsePoolStats;
}

export interface ParsePoolStats {
  workers: number;
  running: number;
  queued: number;
  reservedBytes: number;
  budgetBytes: number;
  /** Workers replaced because a job left them large, or after their quota of jobs. */
  recycled: number;
}

/** Jobs estimated at this much or more leave enough garbage on the main thread to collect it after them. */
const LARGE_JOB_BYTES = 64 * 1024 * 1024;

/** A job admitted by its estimate, waiting for memory and a worker. */
interface Waiting {
  job: ParseJob;
  cost: number;
  /** Gives back the reservation once started; held runs give it back through `releaseReservation`. */
  release: (() => void) | null;
  holds: boolean;
  channel: Channel<ParseJobEvent>;
  waitTimer: NodeJS.Timeout | null;
  started(job: StartedJob): void;
  /** Fails the job before it started. */
  refuse(error: unknown): void;
}

/**
 * Parse worker threads behind a memory admission budget. A job's cost is estimated before anything
 * heavy happens (`estimateParseCost`: milliseconds, nothing inflated): over the whole budget it is
 * refused at once; otherwise it waits, first in first out, until its cost fits in what the running
 * jobs leave and a worker is free, or gives up after `maxQueueWaitMs`. Its reservation is given
 * back when it ends. The workers themselves are `createWorkerSlots`'.
 */
export function createParsePool(options: ParsePoolOptions): ParsePool {
  const budget = createMemoryBudget<Waiting>({
    capacity: options.memoryBudgetBytes,
    maxQueue: options.maxQueue,
  });
  const estimate =
    options.estimateCost ??
    ((job: ParseJob) => estimateParseCost(job, COST_MODEL, options.memoryBudgetBytes));
  let closed = false;
  const mainThreadBusy = eventLoopBusySince();
  const collection = createMainThreadCollection(1_000, () => mainThreadBusy() || slots.busy > 0);
  const afterJob = (cost: number): void => {
    if (cost >= LARGE_JOB_BYTES) collection.afterLargeJob();
  };
  /**
   * A large held reservation ends once its caller has stored what the parse gave: its garbage is
   * collected before the next large job starts, or the heap grows with each one's (measured: three
   * 4.8 MB DOCX uploads, one after another, grew RSS by 575 MB against 291 MB for one alone).
   */
  const collectIfGrown = collectionOnGrowth(LARGE_JOB_BYTES);
  const afterHeldJob = (cost: number): void => {
    if (cost < LARGE_JOB_BYTES) return;
    collectIfGrown();
    // And once what followed it (the projections applying the document) has left its garbage too.
    collection.afterLargeJob();
  };
  const slots = createWorkerSlots({
    size: options.size,
    timeoutMs: options.timeoutMs,
    maxMemoryMb: options.maxMemoryMb,
    recycle: options.recycle,
    services: options.services,
    workerUrl: options.workerUrl ?? PARSE_WORKER_URL,
    log: options.log,
    onIdle: () => schedule(),
  });

  function schedule(): void {
    while (!closed && slots.busy < options.size) {
      const next = budget.takeNext();
      if (!next) return;
      if (next.waitTimer) clearTimeout(next.waitTimer);
      let released = false;
      const giveBack = (): void => {
        if (released) return;
        released = true;
        budget.release(next.cost);
        if (next.holds) afterHeldJob(next.cost);
        else afterJob(next.cost);
        schedule();
      };
      next.release = giveBack;
      const release = (): void => {
        if (!next.holds) giveBack();
        // The worker is free whether or not the memory is: another job may fit beside the held one.
        else schedule();
      };
      const started = slots.start(
        next.job,
        {
          event: (event) => next.channel.push(event),
          end: () => {
            next.channel.end();
            release();
          },
          fail: (error) => {
            next.channel.fail(error);
            release();
          },
        },
        next.cost,
      );
      if (!started) {
        // Every worker is busy after all (one is being replaced): give the place back, at the front.
        next.release = null;
        budget.release(next.cost);
        budget.requeue(next);
        return;
      }
      next.started(started);
    }
  }

  /** Refuses the job when its estimate is over the whole budget; otherwise queues it. */
  async function admit(waiting: Waiting, signal: AbortSignal): Promise<void> {
    const cost = await estimate(waiting.job);
    waiting.cost = cost.bytes;
    if (cost.bytes > budget.capacity) {
      throw new ParseError(
        'too_large',
        `Parsing ${waiting.job.fileName} would need about ${megabytes(cost.bytes)} of memory (${cost.basis}); ` +
          `this server parses documents within ${megabytes(budget.capacity)} (PARSE_MEMORY_BUDGET_MB)`,
      );
    }
    if (signal.aborted) throw new ParseError('aborted', 'Parsing stopped: the client went away');
    if (closed) throw new PoolBusyError('the parse pool is closed');
    budget.enqueue(waiting);
    waiting.waitTimer = setTimeout(() => {
      if (!budget.remove(waiting)) return;
      const seconds = (options.maxQueueWaitMs / 1000).toLocaleString('en');
      waiting.refuse(new PoolBusyError(`no room to parse it within ${seconds} s`));
    }, options.maxQueueWaitMs);
    schedule();
  }

  function leaveQueue(waiting: Waiting): void {
    if (budget.remove(waiting) && waiting.waitTimer) clearTimeout(waiting.waitTimer);
  }

  return {
    run(input, signal, runOptions = {}) {
      const job: ParseJob = { ...input, limits: { ...input.limits, ...options.tableCaps } };
      const channel = createChannel<ParseJobEvent>();
      let running: StartedJob | null = null;
      let markStarted: () => void = () => undefined;
      let markRefused: (error: unknown) => void = () => undefined;
      const started = new Promise<void>((resolve, reject) => {
        markStarted = resolve;
        markRefused = reject;
      });
      // Callers that only iterate learn of a refusal from the iteration.
      started.catch(() => undefined);
      const refuse = (error: unknown): void => {
        channel.fail(error);
        markRefused(error);
        afterJob(waiting.cost);
      };
      const waiting: Waiting = {
        job,
        cost: 0,
        release: null,
        holds: runOptions.holdReservation === true,
        channel,
        waitTimer: null,
        started: (begun) => {
          running = begun;
          markStarted();
        },
        refuse,
      };
      const onAbort = (): void => {
        if (running) running.stop('aborted');
        else {
          leaveQueue(waiting);
          refuse(new ParseError('aborted', 'Parsing stopped: the client went away'));
        }
      };
      signal.addEventListener('abort', onAbort, { once: true });
      admit(waiting, signal).catch(refuse);
      return {
        started,
        releaseReservation() {
          if (!waiting.release) waiting.holds = false;
          waiting.release?.();
        },
        async *[Symbol.asyncIterator]() {
          try {
            yield* channel;
          } finally {
            signal.removeEventListener('abort', onAbort);
            // The consumer stopped early (e.g. the response ended): stop the work too.
            if (running && !running.settled) running.stop('aborted');
            if (!running) leaveQueue(waiting);
          }
        },
      };
    },
    warm: () => slots.warm(),
    async close() {
      closed = true;
      collection.cancel();
      for (const waiting of budget.drain()) {
        if (waiting.waitTimer) clearTimeout(waiting.waitTimer);
        waiting.refuse(new ParseError('aborted', 'the server is shutting down'));
      }
      await slots.close();
    },
    stats: () => ({
      workers: slots.workers,
      running: slots.running,
      queued: budget.waiting,
      reservedBytes: budget.reserved,
      budgetBytes: budget.capacity,
      recycled: slots.recycled,
    }),
  };
}
