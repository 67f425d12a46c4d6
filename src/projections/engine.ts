import type { EventStore } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import type { ReadStore } from '../readStore/readStore.js';
import type { Projection } from './projection.js';
import type { ReadModels } from './readModels.js';
import type { InstanceRef, ProjectionRegistry } from './registry.js';
import { REGISTRY_COLLECTION, instanceId, physicalCollection } from './registry.js';
import type { ProjectionStatus, RunnerState } from './projectionStatus.js';
import { openInstanceSession, type InstanceHooks, type InstanceOutcome } from './instanceRunner.js';
import { holdLease } from '../logProcessing/fencedLease.js';
import { createPositionWaiters } from '../logProcessing/positionWaiters.js';
import {
  createLogProcessor,
  followSession,
  type LogProcessor,
  type Opened,
} from '../logProcessing/logProcessor.js';

export interface ProjectionEngineOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  registry: ProjectionRegistry;
  readModels: ReadModels;
  /**
   * Identifies the lease holder. A process that restarts under the same owner takes its leases back
   * at once (the embedded runtime uses one stable owner per data folder); distinct processes sharing
   * stores need distinct owners, and one takes over another's projections when its lease expires.
   */
  owner: string;
  log: Logger;
  /** Events per batch (per write). */
  batchSize?: number;
  leaseTtlMs?: number;
  /**
   * How long a checkpoint that only moved past events a projection does not handle may wait before
   * it is written (default 1 s): such moves are kept in memory, and written when the log goes quiet
   * or with the next real batch, instead of costing a write per append.
   */
  idleFlushMs?: number;
}

export interface ProjectionEngine {
  /** Starts a runner per projection; resolves once they run (not once they have caught up). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Resolves true once the active instances of `projections` (default: all) have applied every event
   * up to `position`, false after `timeoutMs`. How commands give read-your-writes.
   */
  waitFor(
    position: number,
    options?: { projections?: readonly string[]; timeoutMs?: number },
  ): Promise<boolean>;
  /** Builds a fresh instance of `name` from position 0 beside the active one and switches to it. */
  rebuild(name: string, options?: { onProgress?: (position: number, head: number) => void }): Promise<void>;
  status(): ProjectionStatus[];
  /**
   * Where every projection stands, whichever process applies it (this one, another, or none): the
   * active instance's checkpoint, and who holds its lease. What any role reports of projections.
   */
  positions(): Promise<ProjectionPosition[]>;
}

export interface ProjectionPosition {
  name: string;
  /** This process's state when it runs the projection; else `applied_elsewhere` or `stopped` (nobody does). */
  state: RunnerState | 'applied_elsewhere';
  /** The active instance's checkpoint (-1 before any instance exists). */
  position: number;
  /** The process holding the active instance's lease, when one does. */
  holder: string | null;
}

function sameInstance(a: InstanceRef | null, b: InstanceRef): boolean {
  return a !== null && a.name === b.name && a.version === b.version && a.generation === b.generation;
}

/**
 * Runs projections: for each, the instance its code version should serve (the active one, or one
 * building beside it), under a lease so that only one process applies it, and with the lease's
 * epoch fencing every write so a holder that lost its lease cannot write. Versions move only
 * forward: a building instance becomes active only over an older one, in the same write as its
 * last checkpoint, and a process whose version is older than the active one stops running it.
 */
export function createProjectionEngine(options: ProjectionEngineOptions): ProjectionEngine {
  const { readStore, registry, log } = options;
  const leaseTtlMs = options.leaseTtlMs ?? 15_000;
  const controller = new AbortController();
  const statuses = new Map<string, ProjectionStatus>();
  /** Position of the active instance per projection name, as far as this process knows. */
  const activePositions = new Map<string, number>();
  const waiters = createPositionWaiters();

  const notify = (): void => waiters.notify();

  function setStatus(projection: Projection, patch: Partial<ProjectionStatus>): void {
    const current = statuses.get(projection.name) ?? {
      name: projection.name,
      version: projection.version,
      generation: null,
      state: 'starting' as RunnerState,
      position: 0,
      error: null,
    };
    statuses.set(projection.name, { ...current, ...patch });
  }

  const context = {
    eventStore: options.eventStore,
    readStore,
    registry,
    readModels: options.readModels,
    log,
    owner: options.owner,
    batchSize: options.batchSize ?? 2_000,
    idleFlushMs: options.idleFlushMs ?? 1_000,
    onLive(name: string, position: number) {
      activePositions.set(name, position);
      notify();
    },
    onSwitched(projection: Projection) {
      scheduleSweep(projection);
    },
  };

  /**
   * Drops instances that are no longer active (and no longer building), a little after a switch so
   * that a runner still finishing a batch on the old instance has seen the switch first.
   */
  function scheduleSweep(projection: Projection, delayMs = 2_000): void {
    const timer = setTimeout(() => {
      sweeps.delete(timer);
      void sweep(projection).catch((error: unknown) =>
        log.warn({ err: error, projection: projection.name }, 'could not drop a retired projection instance'),
      );
    }, delayMs);
    timer.unref();
    sweeps.add(timer);
  }
  /** Pending sweeps: cancelled when the engine stops (the stores close after it; the next start sweeps). */
  const sweeps = new Set<NodeJS.Timeout>();

  async function sweep(projection: Projection): Promise<void> {
    const active = await registry.active(projection.name);
    // Only the process running the active version cleans up: an outdated one must not touch it.
    if (!active || active.version !== projection.version) return;
    for (const instance of await registry.instances(projection.name)) {
      if (sameInstance(active, instance) || instance.status === 'building') continue;
      for (const collection of projection.collections) {
        await readStore.dropCollection(physicalCollection(collection.name, instance));
      }
      await readStore.write([{ op: 'delete', collection: REGISTRY_COLLECTION, id: instanceId(instance) }]);
    }
  }

  function hooksFor(projection: Projection): InstanceHooks {
    return {
      report: (patch) => setStatus(projection, patch),
    };
  }

  /** Which instance this process should run, under its lease: a session, or a reason to wait. */
  async function open(projection: Projection): Promise<Opened<InstanceOutcome>> {
    const target = await registry.target(projection);
    if (target.kind === 'outdated') {
      activePositions.delete(projection.name);
      // Reads here must stop at once, not when the cached pointer expires.
      options.readModels.setActive(target.active);
      if (statuses.get(projection.name)?.state !== 'outdated') {
        log.warn(
          { projection: projection.name, version: projection.version, activeVersion: target.active.version },
          'a newer version of this projection is active: this process neither runs nor serves it',
        );
      }
      setStatus(projection, { state: 'outdated', generation: null, error: null });
      notify();
      return { wait: 'outdated', retryMs: Math.min(5_000, leaseTtlMs) };
    }
    const instance = target.instance;
    const held = await holdLease(readStore, instanceId(instance), options.owner, leaseTtlMs);
    if (!held) {
      setStatus(projection, {
        state: 'standby',
        generation: instance.generation,
        position: instance.position,
      });
      return { wait: 'standby', retryMs: Math.min(1_000, leaseTtlMs / 3) };
    }
    try {
      const opened = await openInstanceSession(context, projection, instance, held, hooksFor(projection));
      if ('done' in opened) {
        await held.release();
        // Done before reading anything (switched at once): open again for the instance now active.
        return { wait: 'standby', retryMs: 0 };
      }
      return { session: opened };
    } catch (error) {
      await held.release().catch(() => undefined);
      throw error;
    }
  }

  const processors = new Map<string, LogProcessor>(
    registry.projections.map((projection) => [
      projection.name,
      createLogProcessor<InstanceOutcome>({
        name: projection.name,
        eventStore: options.eventStore,
        log,
        open: () => open(projection),
        describeEnd: (outcome) => `switching instance (${outcome})`,
        maxBatch: context.batchSize,
        idleMs: context.idleFlushMs,
        // Capped low: most failures are a store that is briefly down, and reads wait on recovery.
        retry: { baseMs: 250, maxMs: 5_000 },
      }),
    ]),
  );

  /** The engine's own view of a projection, with the processor's state where it says more. */
  function statusOf(projection: Projection): ProjectionStatus {
    const own = statuses.get(projection.name);
    const processor = processors.get(projection.name)?.status();
    const base: ProjectionStatus = own ?? {
      name: projection.name,
      version: projection.version,
      generation: null,
      state: 'starting',
      position: 0,
      error: null,
    };
    // Failures and stops are the processor's to know; the rest the instance session reports.
    if (processor && (processor.state === 'failed' || processor.state === 'stopped')) {
      return { ...base, state: processor.state, error: processor.error };
    }
    return base;
  }

  async function currentPosition(name: string): Promise<number> {
    const local = statuses.get(name);
    if (local?.state === 'outdated') return -1;
    if (local?.state === 'live') return activePositions.get(name) ?? 0;
    const active = await registry.active(name);
    if (!active) return -1;
    return (await registry.instance(active))?.position ?? -1;
  }

  /**
   * The checkpoint at which `name` has applied everything up to `position`. Another process writes a
   * checkpoint lazily when it only moved past events the projection skips, so one short of
   * `position` counts once it reaches the projection's last event at or before it: without this, a
   * process that does not run the projection would wait out every read-your-writes timeout, and call
   * a live projection "catching up". Asked once per wait: every event at or before `position` is
   * committed already, so the answer cannot change while waiting.
   */
  async function neededCheckpoint(name: string, position: number): Promise<number> {
    const projection = registry.projections.find((candidate) => candidate.name === name);
    if (!projection) return position;
    return Math.min(position, await options.eventStore.headPosition({ eventTypes: projection.handles }));
  }

  return {
    async start() {
      await registry.init();
      for (const projection of registry.projections) {
        setStatus(projection, { state: 'starting' });
        processors.get(projection.name)!.start();
        scheduleSweep(projection, 0);
      }
    },

    async stop() {
      controller.abort();
      for (const timer of sweeps) clearTimeout(timer);
      sweeps.clear();
      notify();
      await Promise.all([...processors.values()].map((processor) => processor.stop()));
    },

    async waitFor(position, waitOptions = {}) {
      const names = waitOptions.projections ?? registry.projections.map((projection) => projection.name);
      const needed = new Map<string, number>();
      const reached = async (name: string): Promise<boolean> => {
        const checkpoint = await currentPosition(name);
        if (checkpoint >= (needed.get(name) ?? position)) return true;
        // This process's own live runner knows its position exactly; another's may be lazy.
        if (checkpoint < 0 || needed.has(name) || statuses.get(name)?.state === 'live') return false;
        needed.set(name, await neededCheckpoint(name, position));
        return checkpoint >= needed.get(name)!;
      };
      // Woken by this process's runners at once; other processes' progress is polled.
      return waiters.until(
        async () => (await Promise.all(names.map(reached))).every(Boolean),
        waitOptions.timeoutMs ?? 2_000,
        { stopped: () => controller.signal.aborted },
      );
    },

    async rebuild(name, rebuildOptions = {}) {
      await registry.init();
      const projection = registry.projections.find((candidate) => candidate.name === name);
      if (!projection) throw new Error(`unknown projection ${name}`);
      const active = await registry.active(name);
      if (active && active.version > projection.version) {
        throw new Error(
          `version ${active.version} of ${name} is active; this code knows version ${projection.version} and must not replace it`,
        );
      }
      const instance = await registry.createInstance(projection);
      const owner = `${options.owner}:rebuild`;
      const held = await holdLease(readStore, instanceId(instance), owner, leaseTtlMs);
      if (!held) throw new Error('rebuild instance is leased elsewhere');
      log.info(
        { projection: name, generation: instance.generation },
        'rebuilding projection beside the active instance',
      );
      const opened = await openInstanceSession({ ...context, owner }, projection, instance, held, {
        untilSwitched: true,
        onProgress: rebuildOptions.onProgress,
      }).catch(async (error: unknown) => {
        await held.release();
        throw error;
      });
      const outcome =
        'done' in opened
          ? (await held.release(), opened.done)
          : await followSession(options.eventStore, opened, {
              signal: controller.signal,
              maxBatch: context.batchSize,
              idleMs: context.idleFlushMs,
            }).finally(() => opened.close());
      if (outcome !== 'switched')
        throw new Error(`rebuild of ${name} ended before it caught up (${outcome})`);
    },

    status() {
      return registry.projections.filter((projection) => statuses.has(projection.name)).map(statusOf);
    },

    async positions() {
      const now = Date.now();
      return Promise.all(
        registry.projections.map(async (projection): Promise<ProjectionPosition> => {
          const local = statuses.has(projection.name) ? statusOf(projection) : null;
          const active = await registry.active(projection.name);
          const [instance, lease] = active
            ? await Promise.all([registry.instance(active), readStore.readLease(instanceId(active))])
            : [null, null];
          const holder = lease && lease.expiresAt > now ? lease.owner : null;
          const position =
            local?.state === 'live'
              ? (activePositions.get(projection.name) ?? instance?.position ?? -1)
              : (instance?.position ?? -1);
          const running = local && !['standby', 'stopped', 'starting'].includes(local.state);
          const state = running ? local.state : holder ? 'applied_elsewhere' : 'stopped';
          return { name: projection.name, state, position, holder };
        }),
      );
    },
  };
}
