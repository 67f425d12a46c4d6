import type { EventStore } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import type { ReadStore } from '../readStore/readStore.js';
import type { Projection } from './projection.js';
import type { ReadModels } from './readModels.js';
import type { InstanceDoc, InstanceRef, ProjectionRegistry } from './registry.js';
import { REGISTRY_COLLECTION, instanceId, physicalCollection } from './registry.js';
import { runInstance, type InstanceHooks } from './instanceRunner.js';

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

export type RunnerState =
  | 'starting'
  | 'catching_up'
  | 'live'
  | 'building'
  | 'standby'
  /** A newer version of the projection is active: this process must neither run nor serve it. */
  | 'outdated'
  | 'failed'
  | 'stopped';

export interface ProjectionStatus {
  name: string;
  version: number;
  generation: number | null;
  state: RunnerState;
  position: number;
  error: string | null;
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
}

export function sameInstance(a: InstanceRef | null, b: InstanceRef): boolean {
  return a !== null && a.name === b.name && a.version === b.version && a.generation === b.generation;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
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
  const waiters = new Set<() => void>();
  const runners: Promise<void>[] = [];

  const notify = (): void => {
    for (const wake of [...waiters]) wake();
  };

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
    leaseTtlMs,
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

  async function runProjection(projection: Projection): Promise<void> {
    const signal = controller.signal;
    let failures = 0;
    while (!signal.aborted) {
      let instance: InstanceDoc | null = null;
      let leased = false;
      try {
        const target = await registry.target(projection);
        if (target.kind === 'outdated') {
          activePositions.delete(projection.name);
          // Reads here must stop at once, not when the cached pointer expires.
          options.readModels.setActive(target.active);
          if (statuses.get(projection.name)?.state !== 'outdated') {
            log.warn(
              {
                projection: projection.name,
                version: projection.version,
                activeVersion: target.active.version,
              },
              'a newer version of this projection is active: this process neither runs nor serves it',
            );
          }
          setStatus(projection, { state: 'outdated', generation: null, error: null });
          notify();
          await sleep(Math.min(5_000, leaseTtlMs), signal);
          continue;
        }
        instance = target.instance;
        const lease = await readStore.acquireLease(instanceId(instance), options.owner, leaseTtlMs);
        if (!lease) {
          setStatus(projection, {
            state: 'standby',
            generation: instance.generation,
            position: instance.position,
          });
          await sleep(Math.min(1_000, leaseTtlMs / 3), signal);
          continue;
        }
        leased = true;
        const outcome = await runInstance(context, projection, instance, lease, signal, hooksFor(projection));
        failures = 0;
        if (outcome === 'stopped') break;
        log.info({ projection: projection.name, outcome }, 'projection runner switching instance');
      } catch (error) {
        if (signal.aborted) break;
        failures += 1;
        // Capped low: most failures are a store that is briefly down, and reads wait on recovery.
        const delay = Math.min(5_000, 250 * 2 ** Math.min(failures, 5));
        setStatus(projection, { state: 'failed', error: (error as Error).message });
        log.error(
          { err: error, projection: projection.name, retryInMs: delay },
          'projection failed; retrying from its checkpoint',
        );
        await sleep(delay, signal);
      } finally {
        if (instance && leased)
          await readStore.releaseLease(instanceId(instance), options.owner).catch(() => undefined);
      }
    }
    setStatus(projection, { state: 'stopped' });
  }

  async function currentPosition(name: string): Promise<number> {
    const local = statuses.get(name);
    if (local?.state === 'outdated') return -1;
    if (local?.state === 'live') return activePositions.get(name) ?? 0;
    const active = await registry.active(name);
    if (!active) return -1;
    return (await registry.instance(active))?.position ?? -1;
  }

  return {
    async start() {
      await registry.init();
      for (const projection of registry.projections) {
        setStatus(projection, { state: 'starting' });
        runners.push(runProjection(projection));
        scheduleSweep(projection, 0);
      }
    },

    async stop() {
      controller.abort();
      for (const timer of sweeps) clearTimeout(timer);
      sweeps.clear();
      notify();
      await Promise.allSettled(runners);
    },

    async waitFor(position, waitOptions = {}) {
      const names = waitOptions.projections ?? registry.projections.map((projection) => projection.name);
      const deadline = Date.now() + (waitOptions.timeoutMs ?? 2_000);
      for (;;) {
        const positions = await Promise.all(names.map(currentPosition));
        if (positions.every((reached) => reached >= position)) return true;
        const left = deadline - Date.now();
        if (left <= 0 || controller.signal.aborted) return false;
        // Woken by this process's runners at once; other processes' progress is polled.
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
      const lease = await readStore.acquireLease(instanceId(instance), owner, leaseTtlMs);
      if (!lease) throw new Error('rebuild instance is leased elsewhere');
      try {
        log.info(
          { projection: name, generation: instance.generation },
          'rebuilding projection beside the active instance',
        );
        const outcome = await runInstance(
          { ...context, owner },
          projection,
          instance,
          lease,
          controller.signal,
          {
            untilSwitched: true,
            onProgress: rebuildOptions.onProgress,
          },
        );
        if (outcome !== 'switched')
          throw new Error(`rebuild of ${name} ended before it caught up (${outcome})`);
      } finally {
        await readStore.releaseLease(instanceId(instance), owner);
      }
    },

    status() {
      return [...statuses.values()].map((status) => ({ ...status }));
    },
  };
}
