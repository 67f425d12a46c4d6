import type { EventStore } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import type { HeldLease } from '../logProcessing/fencedLease.js';
import type { ProcessorSession } from '../logProcessing/logProcessor.js';
import type { ReadStore, WriteOperation } from '../readStore/readStore.js';
import { WriteConflictError } from '../readStore/readStore.js';
import type { ProjectionStatus } from './projectionStatus.js';
import type { Projection } from './projection.js';
import type { ReadModels } from './readModels.js';
import type { ActiveDoc, InstanceDoc, ProjectionRegistry } from './registry.js';
import {
  REGISTRY_COLLECTION,
  activeId,
  expectActive,
  instanceId,
  isNewer,
  physicalCollection,
} from './registry.js';
import { createUnitOfWork } from './unitOfWork.js';

export interface RunnerContext {
  eventStore: EventStore;
  readStore: ReadStore;
  registry: ProjectionRegistry;
  readModels: ReadModels;
  log: Logger;
  owner: string;
  batchSize: number;
  idleFlushMs: number;
  /** The active instance of a projection has applied everything up to `position`. */
  onLive(name: string, position: number): void;
  onSwitched(projection: Projection): void;
}

export interface InstanceHooks {
  /** Stop once the instance has become active (a rebuild). */
  untilSwitched?: boolean;
  report?: (patch: Partial<ProjectionStatus>) => void;
  onProgress?: ((position: number, head: number) => void) | undefined;
}

export type InstanceOutcome = 'stopped' | 'superseded' | 'switched' | 'lease_lost';

/**
 * The log-processor session of one instance of a projection: it applies events until it is no
 * longer the instance to run (`superseded`), until its lease is lost, or (with `untilSwitched`)
 * until it has become active. It reads only the events the projection handles; each batch is
 * applied through a unit of work and written with the new checkpoint in one write, fenced by the
 * lease's epoch. A building instance that has caught up becomes active in that same write — only
 * over an older version or generation, and only if the active pointer is still the one it read.
 * Checkpoints that merely moved past other events are kept in memory and written when the log goes
 * quiet. Resolves with an outcome instead of a session when the instance is done before reading
 * anything (an empty log switches a building instance at once).
 */
export async function openInstanceSession(
  context: RunnerContext,
  projection: Projection,
  start: InstanceDoc,
  held: HeldLease,
  hooks: InstanceHooks,
): Promise<ProcessorSession<InstanceOutcome> | { done: InstanceOutcome }> {
  const { eventStore, readStore, registry, readModels, log } = context;
  const instance: InstanceDoc = { ...start };
  for (const collection of projection.collections) {
    await readStore.ensureCollection({ ...collection, name: physicalCollection(collection.name, instance) });
  }
  const resolve = (collection: string): string => {
    if (!projection.collections.some((c) => c.name === collection)) {
      throw new Error(`projection ${projection.name} does not own the collection ${collection}`);
    }
    return physicalCollection(collection, instance);
  };
  const filter = { eventTypes: projection.handles };
  const handles = new Set(projection.handles);
  const { fence } = held;
  let writtenAt = Date.now();
  /** A checkpoint reached but not written yet (it only moved past events this projection skips). */
  let unwritten: number | null = null;
  const report = (patch: Partial<ProjectionStatus>): void => hooks.report?.(patch);
  report({
    generation: instance.generation,
    state: instance.status === 'live' ? 'catching_up' : 'building',
    position: instance.position,
    error: null,
  });

  /** Writes the batch's changes with the checkpoint; switches a caught-up building instance. */
  async function commit(
    operations: WriteOperation[],
    position: number,
  ): Promise<'committed' | 'switched' | 'superseded' | 'lease_lost'> {
    const writes: WriteOperation[] = [fence];
    let switchTo: ActiveDoc | null = null;
    let previous: ActiveDoc | null = null;
    if (instance.status === 'building') {
      const head = await eventStore.headPosition(filter);
      hooks.onProgress?.(position, head);
      if (position >= head) {
        previous = await registry.active(projection.name);
        if (!isNewer(instance, previous)) return 'superseded';
        writes.push(expectActive(projection.name, previous));
        switchTo = {
          id: activeId(projection.name),
          name: projection.name,
          version: instance.version,
          generation: instance.generation,
        };
      }
    } else {
      // A live instance writes only while it is still the active one.
      writes.push(expectActive(projection.name, instance));
    }
    writes.push(...operations);
    const next: InstanceDoc = { ...instance, position, status: switchTo ? 'live' : instance.status };
    writes.push({ op: 'upsert', collection: REGISTRY_COLLECTION, doc: next });
    if (switchTo) {
      writes.push({ op: 'upsert', collection: REGISTRY_COLLECTION, doc: switchTo });
      if (previous) {
        writes.push({
          op: 'patch',
          collection: REGISTRY_COLLECTION,
          id: instanceId(previous),
          set: { status: 'retired' },
        });
      }
    }
    try {
      await readStore.write(writes);
    } catch (error) {
      if (!(error instanceof WriteConflictError)) throw error;
      return error.reason === 'fenced' ? 'lease_lost' : 'superseded';
    }
    instance.position = position;
    instance.status = next.status;
    writtenAt = Date.now();
    unwritten = null;
    if (switchTo) {
      readModels.setActive(switchTo);
      log.info(
        { projection: projection.name, version: instance.version, generation: instance.generation, position },
        'projection instance is now active',
      );
      context.onSwitched(projection);
    }
    if (instance.status === 'live') context.onLive(projection.name, position);
    report({ position, state: instance.status === 'live' ? 'live' : 'building' });
    return switchTo ? 'switched' : 'committed';
  }

  /** What a commit outcome means for the loop: keep going, or stop with an outcome. */
  function settle(outcome: Awaited<ReturnType<typeof commit>>): InstanceOutcome | undefined {
    if (outcome === 'superseded' || outcome === 'lease_lost') return outcome;
    if (outcome === 'switched' && hooks.untilSwitched) return 'switched';
    return undefined;
  }

  // An empty log (or one fully applied already) has no batch to commit: switch right away.
  if (instance.status === 'building') {
    const outcome = settle(await commit([], instance.position));
    if (outcome) return { done: outcome };
  } else {
    context.onLive(projection.name, instance.position);
  }
  return {
    from: instance.position,
    filter,
    state: instance.status === 'live' ? 'live' : 'building',
    async batch(batch) {
      if (!(await held.renewIfDue())) return 'lease_lost';
      if (batch.events.length === 0 && instance.status === 'live') {
        // Nothing to apply: readers here may rely on it at once; the write can wait for a quiet moment.
        unwritten = batch.checkpoint;
        context.onLive(projection.name, batch.checkpoint);
        report({ position: batch.checkpoint });
        if (Date.now() - writtenAt < context.idleFlushMs) return undefined;
        return settle(await commit([], batch.checkpoint));
      }
      const unit = createUnitOfWork(readStore, resolve);
      for (const event of batch.events) {
        if (handles.has(event.type)) await projection.apply(event, unit.view);
      }
      return settle(await commit(unit.operations(), batch.checkpoint));
    },
    async idle() {
      if (!(await held.renewIfDue())) return 'lease_lost';
      if (unwritten === null || unwritten <= instance.position) return undefined;
      return settle(await commit([], unwritten));
    },
    close: () => held.release(),
  };
}
