import type { EventStore, RecordedEvent } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import type { ReadStore, WriteOperation } from '../readStore/readStore.js';
import type { Projection } from './projection.js';
import type { ReadModels } from './readModels.js';
import type { ActiveDoc, InstanceDoc, InstanceRef, ProjectionRegistry } from './registry.js';
import { REGISTRY_COLLECTION, activeId, instanceId, physicalCollection } from './registry.js';
import { createUnitOfWork } from './unitOfWork.js';

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
}

export type RunnerState = 'starting' | 'catching_up' | 'live' | 'building' | 'standby' | 'failed' | 'stopped';

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

function sameInstance(a: InstanceRef | null, b: InstanceRef): boolean {
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
 * building beside it), under a lease so that only one process applies it. Each batch of events is
 * applied through a unit of work and written with the instance's new checkpoint in one write; a
 * building instance that has caught up becomes active in that same write and the one it replaces is
 * dropped.
 */
export function createProjectionEngine(options: ProjectionEngineOptions): ProjectionEngine {
  const { eventStore, readStore, registry, readModels, log } = options;
  const batchSize = options.batchSize ?? 2_000;
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

  /**
   * Applies events to `instance` until stopped, until it is no longer the instance to serve, or
   * (with `untilSwitched`) until it has become active. Returns the reason it stopped.
   */
  async function runInstance(
    projection: Projection,
    start: InstanceDoc,
    owner: string,
    signal: AbortSignal,
    hooks: {
      untilSwitched?: boolean;
      report?: boolean;
      onProgress?: (position: number, head: number) => void;
    },
  ): Promise<'stopped' | 'superseded' | 'switched' | 'lease_lost'> {
    const instance: InstanceDoc = { ...start };
    const key = instanceId(instance);
    for (const collection of projection.collections) {
      await readStore.ensureCollection({
        ...collection,
        name: physicalCollection(collection.name, instance),
      });
    }
    const resolve = (collection: string): string => {
      if (!projection.collections.some((c) => c.name === collection)) {
        throw new Error(`projection ${projection.name} does not own the collection ${collection}`);
      }
      return physicalCollection(collection, instance);
    };
    const handles = new Set(projection.handles);
    let leaseRenewedAt = Date.now();
    const report = (patch: Partial<ProjectionStatus>): void => {
      if (hooks.report !== false) setStatus(projection, patch);
    };
    report({
      generation: instance.generation,
      state: instance.status === 'live' ? 'catching_up' : 'building',
      position: instance.position,
      error: null,
    });

    /** Makes a caught-up building instance active, in the same write as its last checkpoint. */
    async function switchIfCaughtUp(
      operations: WriteOperation[],
      position: number,
    ): Promise<ActiveDoc | null> {
      if (instance.status !== 'building') return null;
      const head = await eventStore.headPosition();
      hooks.onProgress?.(position, head);
      if (position < head) return null;
      const active: ActiveDoc = {
        id: activeId(projection.name),
        name: projection.name,
        version: instance.version,
        generation: instance.generation,
      };
      instance.status = 'live';
      operations.push({ op: 'upsert', collection: REGISTRY_COLLECTION, doc: active });
      return active;
    }

    /** Writes the batch with the new checkpoint, unless another instance became active meanwhile. */
    async function commit(
      operations: WriteOperation[],
      position: number,
    ): Promise<'committed' | 'superseded'> {
      const previous = await registry.active(projection.name);
      if (instance.status === 'live' && !sameInstance(previous, instance)) return 'superseded';
      const switched = await switchIfCaughtUp(operations, position);
      instance.position = position;
      operations.push({ op: 'upsert', collection: REGISTRY_COLLECTION, doc: { ...instance } });
      if (switched && previous && !sameInstance(previous, instance)) {
        operations.push({
          op: 'patch',
          collection: REGISTRY_COLLECTION,
          id: instanceId(previous),
          set: { status: 'retired' },
        });
      }
      await readStore.write(operations);
      if (switched) {
        readModels.setActive(switched);
        log.info(
          {
            projection: projection.name,
            version: instance.version,
            generation: instance.generation,
            position,
          },
          'projection instance is now active',
        );
        scheduleSweep(projection);
      }
      if (instance.status === 'live') activePositions.set(projection.name, position);
      report({ position, state: instance.status === 'live' ? 'live' : 'building' });
      notify();
      return 'committed';
    }

    // An empty log (or one fully applied already) has no batch to commit: switch right away.
    if (instance.status === 'building' && (await commit([], instance.position)) === 'superseded')
      return 'superseded';
    if (hooks.untilSwitched && instance.status === 'live') return 'switched';
    if (instance.status === 'live') activePositions.set(projection.name, instance.position);
    notify();

    const subscription = eventStore.subscribeToAll({
      fromPosition: instance.position,
      maxBatch: batchSize,
      signal,
    });
    try {
      for await (const batch of subscription) {
        if (Date.now() - leaseRenewedAt > leaseTtlMs / 3) {
          if (!(await readStore.acquireLease(key, owner, leaseTtlMs))) return 'lease_lost';
          leaseRenewedAt = Date.now();
        }
        const unit = createUnitOfWork(readStore, resolve);
        for (const event of batch) {
          if (handles.has(event.type)) await projection.apply(event, unit.view);
        }
        const last = batch.at(-1) as RecordedEvent;
        if ((await commit(unit.operations(), last.position)) === 'superseded') return 'superseded';
        if (hooks.untilSwitched && instance.status === 'live') return 'switched';
      }
      return 'stopped';
    } finally {
      subscription.close();
    }
  }

  /**
   * Drops instances that are no longer active (and no longer building), a little after a switch so
   * that a runner still finishing a batch on the old instance has seen the switch first.
   */
  function scheduleSweep(projection: Projection, delayMs = 2_000): void {
    const timer = setTimeout(() => {
      void sweep(projection).catch((error: unknown) =>
        log.warn({ err: error, projection: projection.name }, 'could not drop a retired projection instance'),
      );
    }, delayMs);
    timer.unref();
  }

  async function sweep(projection: Projection): Promise<void> {
    const active = await registry.active(projection.name);
    for (const instance of await registry.instances(projection.name)) {
      if (sameInstance(active, instance) || instance.status === 'building') continue;
      for (const collection of projection.collections) {
        await readStore.dropCollection(physicalCollection(collection.name, instance));
      }
      await readStore.write([{ op: 'delete', collection: REGISTRY_COLLECTION, id: instanceId(instance) }]);
    }
  }

  async function runProjection(projection: Projection): Promise<void> {
    const signal = controller.signal;
    let failures = 0;
    while (!signal.aborted) {
      let instance: InstanceDoc | null = null;
      try {
        instance = await registry.target(projection);
        if (!(await readStore.acquireLease(instanceId(instance), options.owner, leaseTtlMs))) {
          setStatus(projection, {
            state: 'standby',
            generation: instance.generation,
            position: instance.position,
          });
          await sleep(Math.min(1_000, leaseTtlMs / 3), signal);
          continue;
        }
        const outcome = await runInstance(projection, instance, options.owner, signal, {});
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
        if (instance)
          await readStore.releaseLease(instanceId(instance), options.owner).catch(() => undefined);
      }
    }
    setStatus(projection, { state: 'stopped' });
  }

  async function currentPosition(name: string): Promise<number> {
    const local = statuses.get(name);
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
      await Promise.allSettled(runners);
    },

    async waitFor(position, waitOptions = {}) {
      const names = waitOptions.projections ?? registry.projections.map((projection) => projection.name);
      const deadline = Date.now() + (waitOptions.timeoutMs ?? 2_000);
      for (;;) {
        const positions = await Promise.all(names.map(currentPosition));
        if (positions.every((reached) => reached >= position)) return true;
        const left = deadline - Date.now();
        if (left <= 0) return false;
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
      const instance = await registry.createInstance(projection);
      const owner = `${options.owner}:rebuild`;
      if (!(await readStore.acquireLease(instanceId(instance), owner, leaseTtlMs)))
        throw new Error('rebuild instance is leased elsewhere');
      try {
        log.info(
          { projection: name, generation: instance.generation },
          'rebuilding projection beside the active instance',
        );
        const outcome = await runInstance(projection, instance, owner, controller.signal, {
          untilSwitched: true,
          report: false,
          onProgress: rebuildOptions.onProgress,
        });
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
