import type { Logger } from '../../log.js';
import type { ParseLimits } from '../context.js';
import { ParseError } from '../errors.js';
import type { ParseJob, ParseJobEvent } from '../job.js';
import { COST_MODEL } from '../memory/costModel.js';
import { estimateParseCost, megabytes, type ParseCost } from '../memory/estimateCost.js';
import { createChannel, type Channel } from './channel.js';
import { createMainThreadCollection } from './mainThreadCollection.js';
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
  /** A worker is replaced after a job that left its footprint this far above its baseline, or after this many jobs. */
  recycle: { aboveBytes: number; afterJobs: number };
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
}

/** Parses documents in worker threads. */
export interface ParsePool {
  /** The job's events; throws a `ParseError` when the document cannot be parsed, times out, or `signal` aborts. */
  run(job: ParseJob, signal: AbortSignal): ParseRun;
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
  const collection = createMainThreadCollection(1_000, () => slots.busy > 0);
  const afterJob = (cost: number): void => {
    if (cost >= LARGE_JOB_BYTES) collection.afterLargeJob();
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
      const release = (): void => {
        budget.release(next.cost);
        afterJob(next.cost);
        schedule();
      };
      const started = slots.start(next.job, {
        event: (event) => next.channel.push(event),
        end: () => {
          next.channel.end();
          release();
        },
        fail: (error) => {
          next.channel.fail(error);
          release();
        },
      });
      if (!started) {
        // Every worker is busy after all (one is being replaced): give the place back, at the front.
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
    run(input, signal) {
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
