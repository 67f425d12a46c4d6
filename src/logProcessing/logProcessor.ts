import { setTimeout as sleep } from 'node:timers/promises';
import type { AllBatch, EventFilter, EventStore } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import { isServiceUnavailable } from '../unavailable.js';
import { followBatches } from './followBatches.js';
import { createPositionWaiters } from './positionWaiters.js';

/**
 * Where a follower of the log stands. `live`: it has applied the log as far as `position`, and
 * readers may rely on that; `catching_up` / `building`: it is on its way there; `standby`: another
 * process holds its lease; `outdated`: a newer version runs elsewhere; `failed`: its last attempt
 * failed and it retries from its checkpoint.
 */
export type ProcessorState =
  'starting' | 'catching_up' | 'live' | 'building' | 'standby' | 'outdated' | 'failed' | 'stopped';

export interface ProcessorStatus {
  name: string;
  state: ProcessorState;
  /** The checkpoint it has reached (of the instance it runs). */
  position: number;
  error: string | null;
}

/**
 * What a follower does while it holds the right to run: where it starts, which events it reads, and
 * what each batch and each quiet moment does. A session ends when a handler returns a value (its
 * lease was lost, it was superseded…), when the processor stops, or when a handler throws; `close`
 * runs once in every case.
 */
export interface ProcessorSession<End> {
  /** Exclusive: the checkpoint after which to read. */
  from: number;
  filter: EventFilter;
  /** Where it stands once open (default `live`: it has applied the log up to `from`). */
  state?: ProcessorState;
  /** Applies the batch's events and records its checkpoint (or defers a checkpoint-only move). */
  batch(batch: AllBatch): Promise<End | undefined>;
  /** No batch came for a while: write what was deferred, renew the lease. */
  idle(): Promise<End | undefined>;
  close(): Promise<void>;
}

/** What opening a session came to: a session, or a reason to wait and try again. */
export type Opened<End> =
  { session: ProcessorSession<End> } | { wait: 'standby' | 'outdated'; retryMs: number };

/** Lets a session say where it stands while it runs. */
export type Report = (patch: Partial<Omit<ProcessorStatus, 'name'>>) => void;

export interface LogProcessorOptions<End> {
  name: string;
  eventStore: EventStore;
  log: Logger;
  /** Claims the right to run (a lease) and reads the checkpoint; called again after every end. */
  open(signal: AbortSignal, report: Report): Promise<Opened<End>>;
  /** A session ended with this outcome: logged, then a new session is opened. */
  describeEnd?(end: End): string;
  maxBatch?: number;
  /** How long the log must be quiet before `idle` runs (default 1 s). */
  idleMs?: number;
  /** Backoff after a failure, doubling from `baseMs` up to `maxMs`. */
  retry?: { baseMs: number; maxMs: number };
}

export interface LogProcessor {
  readonly name: string;
  start(): void;
  /** Stops following and waits for the batch in hand to finish. */
  stop(): Promise<void>;
  status(): ProcessorStatus;
  /** True once this processor is live at `position` or beyond; false after `timeoutMs`. */
  waitFor(position: number, timeoutMs: number): Promise<boolean>;
}

/**
 * Follows one session's filtered subscription until a handler ends it, the signal aborts, or a
 * handler throws. Shared by the processor loop and by one-off runs such as a projection rebuild.
 */
export async function followSession<End>(
  eventStore: EventStore,
  session: ProcessorSession<End>,
  options: { signal: AbortSignal; maxBatch: number; idleMs: number },
): Promise<End | 'ended'> {
  return followBatches<AllBatch, End>(
    eventStore.subscribeToAll({
      fromPosition: session.from,
      filter: session.filter,
      maxBatch: options.maxBatch,
      signal: options.signal,
    }),
    { idleMs: options.idleMs, batch: (batch) => session.batch(batch), idle: () => session.idle() },
  );
}

/**
 * The one way Archivist follows its event log: projections, reactors and the vector projection are
 * each a processor. The loop is theirs in common — claim (lease) or stand by, resume from the
 * checkpoint, read only the events wanted, hand each batch over, and after any failure of an
 * engine retry from the checkpoint with backoff — so a store going away and coming back is handled
 * the same way everywhere and never ends a follower. What differs (where the checkpoint lives, what
 * a batch does, what fences the writes) is the session `open` returns.
 */
export function createLogProcessor<End>(options: LogProcessorOptions<End>): LogProcessor {
  const { name, log } = options;
  const controller = new AbortController();
  const waiters = createPositionWaiters();
  const retry = options.retry ?? { baseMs: 250, maxMs: 10_000 };
  const status: ProcessorStatus = { name, state: 'starting', position: 0, error: null };
  let running: Promise<void> | null = null;

  const report: Report = (patch) => {
    Object.assign(status, patch);
    waiters.notify();
  };
  const pause = (ms: number): Promise<void> =>
    sleep(ms, undefined, { signal: controller.signal }).catch(() => undefined);

  async function runSession(session: ProcessorSession<End>): Promise<End | 'ended'> {
    try {
      return await followSession(
        options.eventStore,
        {
          ...session,
          batch: async (batch) => {
            const end = await session.batch(batch);
            if (end === undefined && status.position < batch.checkpoint && status.state === 'live') {
              report({ position: batch.checkpoint });
            }
            return end;
          },
        },
        { signal: controller.signal, maxBatch: options.maxBatch ?? 500, idleMs: options.idleMs ?? 1_000 },
      );
    } finally {
      await session
        .close()
        .catch((error: unknown) =>
          log.warn({ err: error, processor: name }, 'could not close a log processor session'),
        );
    }
  }

  async function loop(): Promise<void> {
    const signal = controller.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        const opened = await options.open(signal, report);
        if ('wait' in opened) {
          report({ state: opened.wait, error: null });
          await pause(opened.retryMs);
          continue;
        }
        report({ position: opened.session.from, state: opened.session.state ?? 'live', error: null });
        const end = await runSession(opened.session);
        failures = 0;
        if (end === 'ended') break;
        log.info(
          { processor: name, outcome: options.describeEnd?.(end) ?? String(end) },
          'log processor session ended; opening a new one',
        );
      } catch (error) {
        if (signal.aborted) break;
        failures += 1;
        const delay = Math.min(retry.maxMs, retry.baseMs * 2 ** Math.min(failures, 16));
        report({ state: 'failed', error: (error as Error).message });
        // An engine that is down is an expected condition, logged once per attempt as a warning; any
        // other failure is a bug and is logged as an error with its stack.
        const entry = { err: error, processor: name, retryInMs: delay, failures };
        if (isServiceUnavailable(error)) log.warn(entry, 'log processor waiting for its stores; retrying');
        else log.error(entry, 'log processor failed; retrying from its checkpoint');
        await pause(delay);
      }
    }
    report({ state: 'stopped' });
  }

  return {
    name,
    start(): void {
      running ??= loop();
    },
    async stop(): Promise<void> {
      controller.abort();
      waiters.notify();
      await running;
    },
    status: () => ({ ...status }),
    waitFor(position, timeoutMs) {
      return waiters.until(() => status.state === 'live' && status.position >= position, timeoutMs, {
        stopped: () => controller.signal.aborted,
      });
    },
  };
}
