import { expect } from 'chai';
import { BroadcastChannel } from 'node:worker_threads';
import { DEFAULT_PARSE_LIMITS, DEFAULT_PARSE_OPTIONS } from '../../../src/parsing/context.js';
import { ParseError } from '../../../src/parsing/errors.js';
import type { ParseJob, ParseJobEvent } from '../../../src/parsing/job.js';
import { silentLogger } from '../../../src/log.js';
import {
  createParsePool,
  PoolBusyError,
  type ParsePool,
  type ParsePoolOptions,
  type ParseRun,
} from '../../../src/parsing/worker/parsePool.js';
import { eventually } from '../../support/eventually.js';

const MB = 1024 * 1024;
const fakeWorker = new URL('./fakeParseWorker.ts', import.meta.url);
const control = new BroadcastChannel('fake-parse-worker');
control.unref();

/** Jobs are named for what the test needs: `hold-…` waits for `release`, `cost-<MB>` sets the estimate. */
function job(fileName: string): ParseJob {
  return {
    kind: 'sections',
    fileName,
    bytes: new Uint8Array(Buffer.from('text')),
    options: DEFAULT_PARSE_OPTIONS,
    cleaning: { removeUrls: false, normalizeArabic: false },
    limits: DEFAULT_PARSE_LIMITS,
    chunking: { mode: 'auto', targetWords: 500, maxWords: 1500 },
    includeFullText: false,
  };
}

const costOf = (fileName: string): number => Number(/cost-(\d+)/.exec(fileName)?.[1] ?? 1) * MB;

function pool(overrides: Partial<ParsePoolOptions> = {}): ParsePool {
  return createParsePool({
    size: 2,
    timeoutMs: 60_000,
    maxMemoryMb: 256,
    maxQueue: 8,
    maxQueueWaitMs: 60_000,
    memoryBudgetBytes: 100 * MB,
    recycle: { aboveBytes: 64 * MB, afterJobs: 1_000 },
    tableCaps: { maxRows: 10, maxRowFields: 10, maxFieldChars: 10 },
    services: { ocrWorkers: 1, openai: null },
    log: silentLogger,
    workerUrl: fakeWorker,
    estimateCost: async (parseJob) => ({ bytes: costOf(parseJob.fileName), basis: 'the test says so' }),
    ...overrides,
  });
}

/**
 * Follows a run from the start: `running` resolves once the worker has reported the job (so its
 * broadcast channel exists and a release cannot be lost), `done` with the events and the error.
 */
function follow(run: ParseRun): {
  running: Promise<void>;
  done: Promise<{ events: ParseJobEvent[]; error: unknown }>;
} {
  let reported: () => void = () => undefined;
  const running = new Promise<void>((resolve) => (reported = resolve));
  const done = (async () => {
    const events: ParseJobEvent[] = [];
    try {
      for await (const event of run) {
        events.push(event);
        reported();
      }
      return { events, error: null };
    } catch (error) {
      return { events, error };
    }
  })();
  return { running, done };
}

/** Collects a run's events; resolves with them, or with the error it failed with. */
async function outcome(run: ParseRun): Promise<{ events: ParseJobEvent[]; error: unknown }> {
  const events: ParseJobEvent[] = [];
  try {
    for await (const event of run) events.push(event);
    return { events, error: null };
  } catch (error) {
    return { events, error };
  }
}

const release = (name: string): void => control.postMessage(name);
const until = (condition: () => boolean): Promise<true> => eventually(() => (condition() ? true : undefined));
const threadOf = (events: ParseJobEvent[]): string | undefined =>
  events.find((event) => event.type === 'metadata')?.metadata.title;

describe('parse pool admission and recycling', function () {
  this.timeout(20_000);
  let parser: ParsePool;
  afterEach(async () => parser.close());

  it('refuses a job whose estimate is over the whole budget at once, before any worker exists', async () => {
    parser = pool();
    const run = parser.run(job('report-cost-101.docx'), new AbortController().signal);
    const error = await run.started.then(
      () => null,
      (refusal: unknown) => refusal,
    );
    expect(error).to.be.instanceOf(ParseError);
    expect((error as ParseError).code).to.equal('too_large');
    expect((error as ParseError).message)
      .to.contain('would need about 101 MB of memory (the test says so)')
      .and.contain('within 100 MB (PARSE_MEMORY_BUDGET_MB)');
    expect((await outcome(run)).error).to.equal(error);
    expect(parser.stats()).to.include({ workers: 0, queued: 0, reservedBytes: 0 });
  });

  it('starts jobs while their estimates fit, queues the rest first in first out, and starts them as memory comes back', async () => {
    parser = pool({ size: 4 });
    const signal = new AbortController().signal;
    const a = follow(parser.run(job('hold-a-cost-60'), signal));
    const b = follow(parser.run(job('hold-b-cost-30'), signal));
    await Promise.all([a.running, b.running]);
    const cRun = parser.run(job('hold-c-cost-50'), signal);
    // d would fit beside a and b, but does not overtake c.
    const dRun = parser.run(job('hold-d-cost-10'), signal);
    const order: string[] = [];
    void cRun.started.then(() => order.push('c'));
    void dRun.started.then(() => order.push('d'));
    const [c, d] = [follow(cRun), follow(dRun)];
    await until(() => parser.stats().queued === 2);
    expect(parser.stats()).to.include({ running: 2, queued: 2, reservedBytes: 90 * MB });
    release('hold-a-cost-60');
    await Promise.all([c.running, d.running]);
    expect(order).to.deep.equal(['c', 'd']);
    expect(parser.stats()).to.include({ running: 3, queued: 0, reservedBytes: 90 * MB });
    for (const name of ['hold-b-cost-30', 'hold-c-cost-50', 'hold-d-cost-10']) release(name);
    const results = await Promise.all([a, b, c, d].map((run) => run.done));
    expect(results.map((result) => result.error)).to.deep.equal([null, null, null, null]);
    expect(parser.stats()).to.include({ running: 0, reservedBytes: 0 });
  });

  it('answers PoolBusyError when the queue is full, and when a job has waited longer than allowed', async () => {
    parser = pool({ size: 1, maxQueue: 1, maxQueueWaitMs: 200 });
    const signal = new AbortController().signal;
    const holding = follow(parser.run(job('hold-full'), signal));
    await holding.running;
    const waiting = parser.run(job('waits'), signal);
    await until(() => parser.stats().queued === 1);
    const refused = await outcome(parser.run(job('one-too-many'), signal));
    expect(refused.error).to.be.instanceOf(PoolBusyError);
    expect((refused.error as Error).message).to.contain('1 documents are waiting');
    const waited = await waiting.started.then(
      () => null,
      (error: unknown) => error,
    );
    expect(waited).to.be.instanceOf(PoolBusyError);
    expect((waited as Error).message).to.contain('no room to parse it within 0.2 s');
    release('hold-full');
    expect((await holding.done).error).to.equal(null);
  });

  it('takes an aborted job out of the queue, so the next one starts in its place', async () => {
    parser = pool({ size: 1 });
    const holding = follow(parser.run(job('hold-first'), new AbortController().signal));
    await holding.running;
    const controller = new AbortController();
    const abandoned = parser.run(job('abandoned'), controller.signal);
    const next = parser.run(job('next'), new AbortController().signal);
    await until(() => parser.stats().queued === 2);
    controller.abort();
    const aborted = await outcome(abandoned);
    expect((aborted.error as ParseError).code).to.equal('aborted');
    expect(parser.stats().queued).to.equal(1);
    release('hold-first');
    expect((await outcome(next)).error).to.equal(null);
  });

  it('replaces a worker after a job that left it large, and keeps one that stayed small', async () => {
    parser = pool({ size: 1 });
    await parser.warm();
    const signal = new AbortController().signal;
    const small = await outcome(parser.run(job('small-footprint-1000'), signal));
    const again = await outcome(parser.run(job('again'), signal));
    expect(threadOf(again.events)).to.equal(threadOf(small.events));
    expect(parser.stats().recycled).to.equal(0);

    const large = await outcome(parser.run(job(`large-footprint-${65 * MB}`), signal));
    expect(threadOf(large.events)).to.equal(threadOf(small.events));
    const after = await outcome(parser.run(job('after'), signal));
    expect(threadOf(after.events)).to.not.equal(threadOf(large.events));
    expect(parser.stats()).to.include({ recycled: 1, workers: 1 });
  });

  it('replaces a worker after its quota of jobs', async () => {
    parser = pool({ size: 1, recycle: { aboveBytes: 64 * MB, afterJobs: 2 } });
    const signal = new AbortController().signal;
    const threads: Array<string | undefined> = [];
    for (const name of ['one', 'two', 'three'])
      threads.push(threadOf((await outcome(parser.run(job(name), signal))).events));
    expect(threads[1]).to.equal(threads[0]);
    expect(threads[2]).to.not.equal(threads[1]);
    expect(parser.stats().recycled).to.equal(1);
  });

  it("keeps a held job's memory after its parse until its caller gives it back, while its worker takes other jobs", async () => {
    parser = pool({ size: 2 });
    const signal = new AbortController().signal;
    const held = parser.run(job('stored-cost-70'), signal, { holdReservation: true });
    expect((await outcome(held)).error).to.equal(null);
    expect(parser.stats()).to.include({ running: 0, reservedBytes: 70 * MB });
    // A small job fits beside the held memory and runs; a large one waits for it.
    expect((await outcome(parser.run(job('small-cost-20'), signal))).error).to.equal(null);
    const large = parser.run(job('large-cost-40'), signal);
    const started = { large: false };
    void large.started.then(() => (started.large = true));
    await until(() => parser.stats().queued === 1);
    expect(started.large).to.equal(false);
    held.releaseReservation();
    held.releaseReservation();
    expect((await outcome(large)).error).to.equal(null);
    expect(parser.stats()).to.include({ running: 0, queued: 0, reservedBytes: 0 });
  });

  it("gives back a held job's memory when its parse fails and its caller releases it", async () => {
    parser = pool({ size: 1 });
    const signal = new AbortController().signal;
    const failing = parser.run(job('fail-cost-60'), signal, { holdReservation: true });
    expect((await outcome(failing)).error).to.not.equal(null);
    expect(parser.stats().reservedBytes).to.equal(60 * MB);
    failing.releaseReservation();
    expect(parser.stats().reservedBytes).to.equal(0);
  });

  it('replaces a worker after a job estimated at afterCostBytes or more', async () => {
    parser = pool({ size: 1, recycle: { aboveBytes: 64 * MB, afterJobs: 1_000, afterCostBytes: 50 * MB } });
    const signal = new AbortController().signal;
    const first = await outcome(parser.run(job('modest-cost-49'), signal));
    const second = await outcome(parser.run(job('big-cost-50'), signal));
    expect(threadOf(second.events)).to.equal(threadOf(first.events));
    const third = await outcome(parser.run(job('after'), signal));
    expect(threadOf(third.events)).to.not.equal(threadOf(second.events));
    expect(parser.stats().recycled).to.equal(1);
  });
});
