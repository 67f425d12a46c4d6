import type { Doc, ReadStore, WriteOperation } from '../readStore/readStore.js';
import type { Projection } from './projection.js';
import { onceSucceeded } from '../onceSucceeded.js';

/**
 * Where projections keep their bookkeeping, in the read store itself (so a checkpoint can commit
 * with the changes it describes): one document per instance (name, version, generation) with its
 * checkpoint, and one "active" pointer per projection naming the instance queries read.
 */
export const REGISTRY_COLLECTION = 'sys_projections';

export interface InstanceRef {
  name: string;
  version: number;
  generation: number;
}

export interface InstanceDoc extends Doc, InstanceRef {
  /** Position of the last event applied (0 before the first). */
  position: number;
  status: 'building' | 'live' | 'retired';
}

export interface ActiveDoc extends Doc, InstanceRef {}

export const instanceId = (ref: InstanceRef): string =>
  `instance:${ref.name}@${ref.version}.${ref.generation}`;
export const activeId = (name: string): string => `active:${name}`;

/** Physical collection of a logical one within an instance, e.g. `tasks__v1_3`. */
export function physicalCollection(
  collection: string,
  ref: Pick<InstanceRef, 'version' | 'generation'>,
): string {
  return `${collection}__v${ref.version}_${ref.generation}`;
}

/**
 * Versions move only forward: an instance may replace the active one only if it is of a higher
 * version, or of the same version and a later generation (a rebuild).
 */
export function isNewer(candidate: InstanceRef, active: InstanceRef | null): boolean {
  if (!active) return true;
  if (candidate.version !== active.version) return candidate.version > active.version;
  return candidate.generation > active.generation;
}

/** Precondition that the active pointer is still `active` (or still absent) when a write applies. */
export function expectActive(name: string, active: InstanceRef | null): WriteOperation {
  return {
    op: 'expect',
    collection: REGISTRY_COLLECTION,
    id: activeId(name),
    fields: active ? { version: active.version, generation: active.generation } : null,
  };
}

/** What a process should do for a projection, given its own version of the code. */
export type Target =
  | { kind: 'run'; instance: InstanceDoc }
  /** A newer version is active: this process's definition is outdated and must not run or serve it. */
  | { kind: 'outdated'; active: ActiveDoc };

export function createProjectionRegistry(store: ReadStore, projections: readonly Projection[]) {
  const owners = new Map<string, Projection>();
  for (const projection of projections) {
    for (const collection of projection.collections) {
      const existing = owners.get(collection.name);
      if (existing)
        throw new Error(
          `collection ${collection.name} is owned by both ${existing.name} and ${projection.name}`,
        );
      owners.set(collection.name, projection);
    }
  }

  const registry = {
    projections,
    /** The projection that owns a logical collection. */
    ownerOf(collection: string): Projection {
      const owner = owners.get(collection);
      if (!owner) throw new Error(`no projection owns the collection ${collection}`);
      return owner;
    },
    init: onceSucceeded(() => store.ensureCollection({ name: REGISTRY_COLLECTION, indexes: ['name'] })),
    async active(name: string): Promise<ActiveDoc | null> {
      return store.get<ActiveDoc>(REGISTRY_COLLECTION, activeId(name));
    },
    async instance(ref: InstanceRef): Promise<InstanceDoc | null> {
      return store.get<InstanceDoc>(REGISTRY_COLLECTION, instanceId(ref));
    },
    async instances(name: string): Promise<InstanceDoc[]> {
      return store.find<InstanceDoc>(REGISTRY_COLLECTION, {
        filter: { name, status: { $exists: true } },
        sort: [['generation', 1]],
      });
    },
    /**
     * What this code version should run: the active instance when it is of this version; nothing
     * when a newer version is active (outdated); otherwise an instance of this version building
     * beside the active one (created when there is none).
     */
    async target(projection: Projection): Promise<Target> {
      const active = await registry.active(projection.name);
      if (active && active.version > projection.version) return { kind: 'outdated', active };
      if (active && active.version === projection.version) {
        const instance = await registry.instance(active);
        if (instance) return { kind: 'run', instance };
      }
      const all = await registry.instances(projection.name);
      const building = all.find((doc) => doc.status === 'building' && doc.version === projection.version);
      return { kind: 'run', instance: building ?? (await registry.createInstance(projection, all)) };
    },
    /** A fresh instance of the projection's current version, built from position 0 beside the active one. */
    async createInstance(projection: Projection, existing?: InstanceDoc[]): Promise<InstanceDoc> {
      const all = existing ?? (await registry.instances(projection.name));
      const generation = all.reduce((max, doc) => Math.max(max, doc.generation), 0) + 1;
      const doc: InstanceDoc = {
        id: instanceId({ name: projection.name, version: projection.version, generation }),
        name: projection.name,
        version: projection.version,
        generation,
        position: 0,
        status: 'building',
      };
      await store.write([{ op: 'upsert', collection: REGISTRY_COLLECTION, doc }]);
      return doc;
    },
  };
  return registry;
}

export type ProjectionRegistry = ReturnType<typeof createProjectionRegistry>;
