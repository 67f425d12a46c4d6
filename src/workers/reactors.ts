import type { EventStore, RecordedEvent } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import { holdLease, type HeldLease } from '../logProcessing/fencedLease.js';
import {
  createLogProcessor,
  type LogProcessor,
  type Opened,
  type ProcessorStatus,
} from '../logProcessing/logProcessor.js';
import type { ReadStore, WriteOperation } from '../readStore/readStore.js';
import { WriteConflictError } from '../readStore/readStore.js';
import { onceSucceeded } from '../onceSucceeded.js';

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

export type ReactorStatus = ProcessorStatus;

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

const REACTORS_COLLECTION = 'sys_reactors';

type CheckpointDoc = { id: string; position: number };

/**
 * Runs reactors, each as a log processor under a lease (so one process runs it) with a checkpoint
 * in the read store whose writes are fenced by the lease's epoch: a process that lost its lease
 * cannot move the checkpoint another has moved on from.
 */
export function createReactorRunner(options: ReactorRunnerOptions) {
  const { eventStore, readStore, log } = options;
  const leaseTtlMs = options.leaseTtlMs ?? 15_000;
  const idleFlushMs = options.idleFlushMs ?? 1_000;
  const init = onceSucceeded(() => readStore.ensureCollection({ name: REACTORS_COLLECTION }));

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

  async function open(reactor: Reactor): Promise<Opened<'lease_lost'>> {
    await init();
    const held: HeldLease | null = await holdLease(
      readStore,
      reactorLease(reactor.name),
      options.owner,
      leaseTtlMs,
    );
    if (!held) return { wait: 'standby', retryMs: Math.min(1_000, leaseTtlMs / 3) };
    let position: number;
    try {
      position = await checkpointOf(reactor, held.fence);
    } catch (error) {
      await held.release().catch(() => undefined);
      throw error;
    }
    let written = position;
    let writtenAt = Date.now();

    async function write(): Promise<'lease_lost' | undefined> {
      if (position === written) return undefined;
      try {
        await readStore.write([
          held!.fence,
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

    return {
      session: {
        from: position,
        filter: { eventTypes: reactor.handles },
        async batch(batch) {
          if (!(await held.renewIfDue())) return 'lease_lost';
          for (const event of batch.events) await reactor.react(event);
          position = batch.checkpoint;
          // Effects are idempotent and delivered at least once, so the checkpoint need not be written
          // after every batch: at most every `idleFlushMs` while events flow, and when the log goes
          // quiet. A crash redelivers what came since (as it would between an effect and its write).
          // Writing after every batch that had effects cost three read-store commits per uploaded file.
          if (Date.now() - writtenAt >= idleFlushMs) return write();
          return undefined;
        },
        async idle() {
          if (!(await held.renewIfDue())) return 'lease_lost';
          return write();
        },
        async close() {
          // A clean stop leaves nothing to redeliver: what was reacted to is written first.
          await write().catch((error: unknown) =>
            log.warn({ err: error, reactor: reactor.name }, 'could not write the checkpoint at close'),
          );
          await held.release();
        },
      },
    };
  }

  const processors: LogProcessor[] = options.reactors.map((reactor) =>
    createLogProcessor<'lease_lost'>({
      name: reactor.name,
      eventStore,
      log,
      open: () => open(reactor),
      describeEnd: () => 'lease lost: another process runs it now',
      maxBatch: options.batchSize ?? 500,
      idleMs: idleFlushMs,
      retry: { baseMs: 250, maxMs: 10_000 },
    }),
  );

  return {
    async start(): Promise<void> {
      await init();
      for (const processor of processors) processor.start();
    },
    async stop(): Promise<void> {
      await Promise.all(processors.map((processor) => processor.stop()));
    },
    status(): ReactorStatus[] {
      return processors.map((processor) => processor.status());
    },
    /** Resolves true once every reactor running here has handled the events up to `position`. */
    async waitFor(position: number, timeoutMs = 2_000): Promise<boolean> {
      const results = await Promise.all(
        processors.map((processor) => processor.waitFor(position, timeoutMs)),
      );
      return results.every(Boolean);
    },
  };
}

/** The lease under which one process runs a reactor. */
const reactorLease = (name: string): string => `reactor:${name}`;

export type ReactorRunner = ReturnType<typeof createReactorRunner>;
