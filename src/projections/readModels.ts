import type { Doc, FindQuery, ReadStore, SearchOptions } from '../readStore/readStore.js';
import type { ActiveDoc, ProjectionRegistry } from './registry.js';
import { physicalCollection } from './registry.js';

/**
 * The read store's queries, by logical collection name, answered from the active instance of the
 * owning projection (as if empty while there is none). Active pointers are cached for `refreshMs`;
 * the projection engine of this process pushes changes at once, other processes' switches are seen
 * within `refreshMs`. A process whose definition of a projection is older than the active one
 * refuses to read it (`ReadModelVersionError`): the documents have a shape its code does not know.
 */
export interface ReadModels extends Pick<
  ReadStore,
  'get' | 'getMany' | 'find' | 'count' | 'countBy' | 'search'
> {
  /** Forget a cached pointer (the engine calls this when it switches an instance). */
  setActive(active: ActiveDoc): void;
}

/**
 * The active read model is not of the version this process's code knows: a newer deployment took
 * over (this process is outdated), or this version is still being built beside an older one.
 */
export class ReadModelVersionError extends Error {
  override readonly name = 'ReadModelVersionError';
  constructor(
    readonly projection: string,
    readonly version: number,
    readonly activeVersion: number,
  ) {
    super(
      `this process serves version ${version} of the ${projection} read model, but version ${activeVersion} is active` +
        (activeVersion > version
          ? ' (a newer deployment took over)'
          : ` (version ${version} is still being built)`),
    );
  }
}

export function createReadModels(
  store: ReadStore,
  registry: ProjectionRegistry,
  refreshMs = 1_000,
): ReadModels {
  const cache = new Map<string, { active: ActiveDoc | null; at: number }>();

  async function physical(collection: string): Promise<string | null> {
    const owner = registry.ownerOf(collection);
    let entry = cache.get(owner.name);
    if (!entry || Date.now() - entry.at > refreshMs) {
      await registry.init();
      entry = { active: await registry.active(owner.name), at: Date.now() };
      cache.set(owner.name, entry);
    }
    const active = entry.active;
    if (!active) return null;
    if (active.version !== owner.version) {
      // An older active version is still what everyone reads while this one builds: its documents
      // may not have the shape this code expects either, so neither is served here.
      throw new ReadModelVersionError(owner.name, owner.version, active.version);
    }
    return physicalCollection(collection, active);
  }

  return {
    async get<T extends Doc>(collection: string, id: string) {
      const name = await physical(collection);
      return name ? store.get<T>(name, id) : null;
    },
    async getMany<T extends Doc>(collection: string, ids: readonly string[]) {
      const name = await physical(collection);
      return name ? store.getMany<T>(name, ids) : [];
    },
    async find<T extends Doc>(collection: string, query?: FindQuery) {
      const name = await physical(collection);
      return name ? store.find<T>(name, query) : [];
    },
    async count(collection, filter) {
      const name = await physical(collection);
      return name ? store.count(name, filter) : 0;
    },
    async countBy(collection, field, filter) {
      const name = await physical(collection);
      return name ? store.countBy(name, field, filter) : [];
    },
    async search<T extends Doc>(collection: string, text: string, options?: SearchOptions) {
      const name = await physical(collection);
      return name ? store.search<T>(name, text, options) : [];
    },
    setActive(active) {
      cache.set(active.name, { active, at: Date.now() });
    },
  };
}
