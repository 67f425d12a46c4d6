import type { AllBatch, EventStore, RecordedEvent } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import { followBatches } from '../projections/followBatches.js';
import type { Lease, ReadStore, WriteOperation } from '../readStore/readStore.js';
import { WriteConflictError } from '../readStore/readStore.js';

/**
 * Turns events into effects: enqueue a job, run a confirmed action, delete a purged stream. Unlike a
 * projection it changes the world, so it is never rebuilt, and when first deployed it starts at the
 * head of the log (it must not redo the effects of history). Events are delivered at least once —
 * after a crash, those since its last checkpoint come again — so every effect must be idempotent,
 * keyed by the event's id.
 */
export interface Reactor {
  /** Lower-case, unique; names its checkpoint. */
  name: string;
  /** Event types it reacts to; it reads no others. */
  handles: readonly string[];
  /** Performs the event's effect. Throwing retries it (and the rest of the batch) later. */
  react(event: RecordedEvent): Promise<void>;
}

export type ReactorState = 'starting' | 'live' | 'standby' | 'failed' | 'stopped';

export interface ReactorStatus {
  name: string;
  state: ReactorState;
  position: number;
  error: string | null;
}

export interface ReactorRunnerOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  reactors: readonly Reactor[];
  /** Lease holder: one process runs each reactor at a time. */
  owner: string;
  log: Logger;
  leaseTtlMs?: number;
  batchSize?: number;
  /** How long a checkpoint that moved past unhandled events may wait to be written (default 1 s). */
  idleFlushMs?: number;
}

export const REACTORS_COLLECTION = 'sys_reactors';

type CheckpointDoc = { id: string; position: number };

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs reactors, each under a lease (so one process runs it) with a checkpoint in the read store
 * whose writes are fenced by the lease's epoch: a process that lost its lease cannot move the
 * checkpoint another has moved on from.
 */
export function createReactorRunner(options: ReactorRunnerOptions) {
  const { eventStore, readStore, log } = options;
  const leaseTtlMs = options.leaseTtlMs ?? 15_000;
  const idleFlushMs = options.idleFlushMs ?? 1_000;
  const batchSize = options.batchSize ?? 500;
  const controller = new AbortController();
  const statuses = new Map<string, ReactorStatus>();
  const waiters = new Set<() => void>();
  const runners: Array<Promise<void>> = [];
  let ready: Promise<void> | null = null;

  const init = (): Promise<void> => (ready ??= readStore.ensureCollection({ name: REACTORS_COLLECTION }));
  const setStatus = (name: string, patch: Partial<ReactorStatus>): void => {
    const current = statuses.get(name) ?? { name, state: 'starting', position: 0, error: null };
    statuses.set(name, { ...current, ...patch });
    for (const wake of [...waiters]) wake();
  };

  /** Where the reactor resumes; a reactor seen for the first time starts at the head of the log. */
  async function checkpointOf(reactor: Reactor, fence: WriteOperation): Promise<number> {
    const stored = await readStore.get<CheckpointDoc>(REACTORS_COLLECTION, reactor.name);
    if (stored) return stored.position;
    const head = await eventStore.headPosition();
    await readStore.write([
      fence,
      { op: 'expect', collection: REACTORS_COLLECTION, id: reactor.name, fields: null },
      { op: 'upsert', collection: REACTORS_COLLECTION, doc: { id: reactor.name, position: head } },
    ]);
    log.info({ reactor: reactor.name, position: head }, 'new reactor starts at the head of the log');
    return head;
  }

  async function runLeased(
    reactor: Reactor,
    lease: Lease,
    signal: AbortSignal,
  ): Promise<'stopped' | 'lease_lost'> {
    const fence: WriteOperation = {
      op: 'fence',
      lease: lease.name,
      owner: options.owner,
      epoch: lease.epoch,
    };
    let position = await checkpointOf(reactor, fence);
    let written = position;
    let writtenAt = Date.now();
    let renewedAt = Date.now();
    setStatus(reactor.name, { state: 'live', position, error: null });

    async function renew(): Promise<boolean> {
      if (Date.now() - renewedAt <= leaseTtlMs / 3) return true;
      const renewed = await readStore.acquireLease(lease.name, options.owner, leaseTtlMs);
      if (!renewed || renewed.epoch !== lease.epoch) return false;
      renewedAt = Date.now();
      return true;
    }

    async function write(): Promise<'lease_lost' | undefined> {
      if (position === written) return undefined;
      try {
        await readStore.write([
          fence,
          { op: 'upsert', collection: REACTORS_COLLECTION, doc: { id: reactor.name, position } },
        ]);
      } catch (error) {
        if (error instanceof WriteConflictError) return 'lease_lost';
        throw error;
      }
      written = position;
      writtenAt = Date.now();
      return undefined;
    }

    const outcome = await followBatches<AllBatch, 'lease_lost'>(
      eventStore.subscribeToAll({
        fromPosition: position,
        filter: { eventTypes: reactor.handles },
        maxBatch: batchSize,
        signal,
      }),
      {
        idleMs: idleFlushMs,
        async batch(batch) {
          if (!(await renew())) return 'lease_lost';
          for (const event of batch.events) await reactor.react(event);
          position = batch.checkpoint;
          setStatus(reactor.name, { position });
          // Effects happened: write at once. A checkpoint that only moved past other events can wait.
          if (batch.events.length > 0 || Date.now() - writtenAt >= idleFlushMs) return write();
          return undefined;
        },
        async idle() {
          if (!(await renew())) return 'lease_lost';
          return write();
        },
      },
    );
    return outcome === 'ended' ? 'stopped' : outcome;
  }

  async function run(reactor: Reactor): Promise<void> {
    const signal = controller.signal;
    const leaseName = `reactor:${reactor.name}`;
    let failures = 0;
    while (!signal.aborted) {
      let lease: Lease | null = null;
      try {
        lease = await readStore.acquireLease(leaseName, options.owner, leaseTtlMs);
        if (!lease) {
          setStatus(reactor.name, { state: 'standby' });
          await sleep(Math.min(1_000, leaseTtlMs / 3), signal);
          continue;
        }
        const outcome = await runLeased(reactor, lease, signal);
        failures = 0;
        if (outcome === 'stopped') break;
        log.warn({ reactor: reactor.name }, 'reactor lost its lease; another process runs it now');
      } catch (error) {
        if (signal.aborted) break;
        failures += 1;
        const delay = Math.min(10_000, 250 * 2 ** Math.min(failures, 6));
        setStatus(reactor.name, { state: 'failed', error: (error as Error).message });
        log.error(
          { err: error, reactor: reactor.name, retryInMs: delay },
          'reaction failed; retrying from the checkpoint',
        );
        await sleep(delay, signal);
      } finally {
        if (lease) await readStore.releaseLease(leaseName, options.owner).catch(() => undefined);
      }
    }
    setStatus(reactor.name, { state: 'stopped' });
  }

  return {
    async start(): Promise<void> {
      await init();
      for (const reactor of options.reactors) {
        setStatus(reactor.name, { state: 'starting' });
        runners.push(run(reactor));
      }
    },
    async stop(): Promise<void> {
      controller.abort();
      await Promise.allSettled(runners);
    },
    status(): ReactorStatus[] {
      return [...statuses.values()].map((status) => ({ ...status }));
    },
    /** Resolves true once every reactor running here has handled the events up to `position`. */
    async waitFor(position: number, timeoutMs = 2_000): Promise<boolean> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const all = [...statuses.values()];
        if (all.every((status) => status.state === 'live' && status.position >= position)) return true;
        const left = deadline - Date.now();
        if (left <= 0) return false;
        await new Promise<void>((resolve) => {
          const wake = (): void => {
            waiters.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, Math.min(left, 25));
          waiters.add(wake);
        });
      }
    },
  };
}

export type ReactorRunner = ReturnType<typeof createReactorRunner>;
