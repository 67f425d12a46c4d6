import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log.js';
import type { Embedder } from '../models/embedder.js';
import type { ActiveCollection, ActiveCollectionStore } from '../vector/activeCollection.js';
import { awaitCheckpoint } from '../vector/awaitCheckpoint.js';
import type { VectorIndex } from '../vector/vectorIndex.js';
import type { DenseSource } from './search.js';
import type { VectorProjector, VectorProjectorStatus } from './vectorProjector.js';

/** Raise when what the vector projection stores changes: a new collection is built beside the old. */
export const VECTOR_INDEX_VERSION = 1;

export interface VectorCollectionsOptions {
  records: ActiveCollectionStore;
  /** The index of a collection (created empty when it does not exist). */
  open(collection: string, dimensions: number): VectorIndex;
  /** Removes a collection and everything it stored (no index of it is open here). */
  drop(collection: string): Promise<void>;
  /** The configured embedder: the collections this process builds hold its vectors. */
  embedder: Embedder;
  /** An embedder of another space when one can be made here (the local embedder can); null otherwise. */
  embedderFor(space: string): Embedder | null;
  /** `collectionName(embedder.space, VECTOR_INDEX_VERSION)`; rebuilds of it are `<base>_r<n>`. */
  base: string;
  headPosition(): Promise<number>;
  /** A projector following the log into `index` with `embedder` (not started). */
  projector(index: VectorIndex, embedder: Embedder): VectorProjector;
  /** Another process writes the index (Milvus): read-your-writes waits for its committed checkpoint. */
  shared: boolean;
  /** How long a retired collection is kept after the switch, for processes still reading it (Milvus). */
  dropGraceMs: number;
  /** How often the record is read again: another process (or `archivist rebuild`) may switch it. */
  pollMs: number;
  log: Logger;
}

/** Whether `collection` is `base` or one of its rebuilds (`<base>_r<n>`). */
export function ofBase(collection: string, base: string): boolean {
  return collection === base || new RegExp(`^${base}_r\\d+$`).test(collection);
}

/** The rebuild number of a collection of `base` (0 for `base` itself). */
export function rebuildNumber(collection: string, base: string): number {
  return ofBase(collection, base) && collection !== base ? Number(collection.slice(base.length + 2)) : 0;
}

/**
 * Blue-green vector collections. The active one is recorded (`ActiveCollectionStore`); a process
 * whose embedder has another space builds its own collection beside it from position 0 (vectors
 * from the embedding cache), and switches the record once that collection has caught up with the
 * head of the log; the one it replaced is dropped then. Meanwhile search reads the active
 * collection if an embedder of its space can be made here (it is kept following the log too), and
 * is lexical only otherwise; never the collection still being built.
 */
export function createVectorCollections(options: VectorCollectionsOptions) {
  const { records, embedder, base, log } = options;
  const indexes = new Map<string, VectorIndex>();
  const projectors = new Map<string, VectorProjector>();
  const timers = new Set<NodeJS.Timeout>();
  /** Drops under way: `stop` waits for them, or they would use the store after it is closed. */
  const dropping = new Set<Promise<void>>();
  const controller = new AbortController();
  let record: ActiveCollection | null = null;
  let readAt = 0;
  let reading: Promise<void> | null = null;
  /** The collection this process writes with the configured embedder (the writer role). */
  let target = base;
  let state: 'serving' | 'building' | 'outdated' = 'serving';
  let writer = false;
  let watching: Promise<void> | null = null;

  const indexOf = (collection: string, dimensions: number): VectorIndex => {
    let index = indexes.get(collection);
    if (!index) {
      index = options.open(collection, dimensions);
      indexes.set(collection, index);
    }
    return index;
  };
  const embedderOf = (space: string): Embedder | null => {
    if (space === embedder.space) return embedder;
    return options.embedderFor(space);
  };

  const pause = (ms: number): Promise<void> =>
    sleep(ms, undefined, { signal: controller.signal }).catch(() => undefined);

  async function follow(collection: string, withEmbedder: Embedder): Promise<void> {
    if (projectors.has(collection)) return;
    const projector = options.projector(indexOf(collection, withEmbedder.dimensions), withEmbedder);
    projectors.set(collection, projector);
    projector.start();
  }
  async function release(collection: string): Promise<void> {
    const projector = projectors.get(collection);
    projectors.delete(collection);
    await projector?.stop();
    const index = indexes.get(collection);
    indexes.delete(collection);
    await index?.close();
  }

  async function read(): Promise<void> {
    const next = await records.read();
    readAt = Date.now();
    const changed = (next?.generation ?? null) !== (record?.generation ?? null);
    record = next;
    if (changed && writer) await moved();
    if (changed && !writer) {
      for (const name of [...indexes.keys()]) if (name !== record?.collection) await release(name);
    }
  }
  /** Reads the record again when it was last read more than `pollMs` ago. */
  async function refresh(force = false): Promise<void> {
    if (!force && Date.now() - readAt < options.pollMs) return;
    reading ??= read().finally(() => {
      reading = null;
    });
    await reading;
  }

  /** The record changed under a writer: switched to what it builds, rebuilt, or moved away from it. */
  async function moved(): Promise<void> {
    if (!record) return;
    if (record.collection === target) {
      state = 'serving';
    } else if (record.space === embedder.space && ofBase(record.collection, base)) {
      // Rebuilt by `archivist rebuild`: follow the new collection from its checkpoint.
      log.info({ from: target, to: record.collection }, 'vector collection rebuilt elsewhere; following it');
      await release(target);
      target = record.collection;
      state = 'serving';
      await follow(target, embedder);
    } else {
      log.warn(
        { active: record.collection, space: record.space, configured: embedder.space },
        'another process switched the vector collection to another embedding model; this one stops writing',
      );
      await release(target);
      state = 'outdated';
    }
    for (const name of [...projectors.keys()])
      if (name !== target && name !== record.collection) await release(name);
    if (state === 'serving') {
      for (const name of [...indexes.keys()]) if (name !== target) await release(name);
    }
    scheduleDrops();
  }

  /** Drops the retired collections after the grace, and takes them off the record. */
  function scheduleDrops(): void {
    const retired = (record?.retired ?? []).filter((name) => name !== target && name !== record?.collection);
    if (retired.length === 0) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      const drop = dropRetired(retired)
        .catch((error: unknown) =>
          log.warn(
            { err: error, retired },
            'could not drop retired vector collections; retried at the next start',
          ),
        )
        .finally(() => dropping.delete(drop));
      dropping.add(drop);
    }, options.dropGraceMs);
    timers.add(timer);
  }
  async function dropRetired(names: readonly string[]): Promise<void> {
    for (const name of names) {
      if (controller.signal.aborted || name === record?.collection || name === target) continue;
      await release(name);
      await options.drop(name);
      log.info({ collection: name }, 'dropped the retired vector collection');
    }
    const current = await records.read();
    if (!current) return;
    const left = current.retired.filter((name) => !names.includes(name));
    if (left.length !== current.retired.length)
      await records.replace({ ...current, retired: left }, current.generation);
    record = (await records.read()) ?? current;
  }

  async function switchToTarget(): Promise<void> {
    const previous = record;
    const next: ActiveCollection = {
      collection: target,
      space: embedder.space,
      dimensions: embedder.dimensions,
      generation: (previous?.generation ?? 0) + 1,
      retired: previous ? [...previous.retired.filter((name) => name !== target), previous.collection] : [],
      switchedAt: new Date().toISOString(),
    };
    if (await records.replace(next, previous?.generation ?? null)) {
      log.info(
        { from: previous?.collection ?? null, to: target },
        'vector collection caught up: switched to it',
      );
      record = next;
      state = 'serving';
      if (previous) await release(previous.collection);
      scheduleDrops();
    } else {
      await refresh(true);
    }
  }

  /** The writer's loop: switches once the target has caught up, and notices switches made elsewhere. */
  async function watch(): Promise<void> {
    const signal = controller.signal;
    while (!signal.aborted) {
      try {
        if (state === 'building') {
          const head = await options.headPosition();
          const projector = projectors.get(target);
          if (projector && (await projector.waitFor(head, options.pollMs)) && !signal.aborted) {
            await switchToTarget();
            continue;
          }
        } else {
          // An abortable pause that takes its abort listener away again (one added per turn and
          // never removed leaked a listener a second, and warned after ten).
          await pause(options.pollMs);
        }
        if (!signal.aborted) await refresh(true);
      } catch (error) {
        if (signal.aborted) break;
        log.warn({ err: error }, 'vector collections: could not check the active record; retrying');
        await pause(options.pollMs);
      }
    }
  }

  const collections = {
    /**
     * The writer role: chooses the collection to write, starts following the log into it (and into
     * the active one while building beside it, if this process can embed its space), and watches.
     */
    async start(): Promise<void> {
      writer = true;
      record = await records.read();
      readAt = Date.now();
      target =
        record && record.space === embedder.space && ofBase(record.collection, base)
          ? record.collection
          : base;
      if (!record) {
        // The first start, or data from before the record existed: a collection that has a
        // checkpoint (or an empty log) is taken as it is; otherwise it is built before it serves.
        const checkpoint = await indexOf(target, embedder.dimensions).checkpoint();
        if (checkpoint !== null || (await options.headPosition()) === 0) await switchToTarget();
      }
      state = record?.collection === target ? 'serving' : 'building';
      await follow(target, embedder);
      if (record && record.collection !== target) {
        const previous = embedderOf(record.space);
        if (previous && previous.dimensions === record.dimensions) await follow(record.collection, previous);
        log.info(
          {
            building: target,
            active: record.collection,
            searching: previous ? record.collection : 'lexical only',
          },
          'building a new vector collection beside the active one',
        );
      }
      scheduleDrops();
      watching = watch();
    },
    /** What search reads now (the record is read again at most every `pollMs`). */
    async dense(): Promise<DenseSource> {
      await refresh();
      if (!record) return { index: null, reason: `no active vector collection yet (building ${target})` };
      const queries = embedderOf(record.space);
      if (!queries || queries.dimensions !== record.dimensions) {
        return {
          index: null,
          reason: `the active collection ${record.collection} holds vectors of ${record.space}, which this process cannot embed queries with`,
        };
      }
      return {
        index: indexOf(record.collection, record.dimensions),
        embedder: queries,
        collection: record.collection,
      };
    },
    /** The active collection as last read (the one this process builds before there is any). */
    active(): string {
      return record?.collection ?? target;
    },
    /** The active collection's index (for counts), opened if needed. */
    activeIndex(): VectorIndex {
      return indexOf(record?.collection ?? target, record?.dimensions ?? embedder.dimensions);
    },
    target: (): string => target,
    state: () => state,
    /** The projector of the collection search reads (null outside the writer role, or lexical only). */
    servingProjector(): VectorProjector | null {
      return projectors.get(record?.collection ?? target) ?? null;
    },
    targetStatus(): VectorProjectorStatus | null {
      return projectors.get(target)?.status() ?? null;
    },
    /** Read-your-writes: the collection search reads holds everything up to `position`. */
    async waitFor(position: number, timeoutMs: number): Promise<boolean> {
      const source = await collections.dense();
      if (!source.index) return true;
      if (options.shared) return awaitCheckpoint(source.index, position, timeoutMs);
      const projector = projectors.get(source.collection);
      return projector ? projector.waitFor(position, timeoutMs) : true;
    },
    /**
     * The vector_store component: healthy while search reads a complete collection; the reason says
     * which one, and how far a collection building beside it has got.
     */
    async health(): Promise<{ healthy: boolean; reason: string | null }> {
      const source = await collections.dense();
      const stored = source.index ? await source.index.health() : null;
      const parts: string[] = [];
      if (writer && state === 'building') {
        const status = projectors.get(target)?.status();
        const head = await options.headPosition();
        const position = Math.min(status?.position ?? 0, head);
        const percent = head > 0 ? Math.floor((100 * position) / head) : 100;
        parts.push(`building ${target} ${percent}% (${position} of ${head} events)`);
        if (status?.state === 'failed') parts.push(`its projection failed: ${status.error}`);
      }
      if (writer && state === 'outdated')
        parts.push(`this process's embedder (${embedder.space}) is not the active one's`);
      const serving = source.index ? projectors.get(source.collection)?.status() : undefined;
      if (serving?.state === 'failed') parts.push(`vector projection failed: ${serving.error}`);
      if (stored && !stored.healthy)
        parts.push(`vector store down (${stored.reason}), search is lexical only`);
      else
        parts.push(
          source.index ? `serving ${stored?.reason ?? source.collection}` : `lexical only: ${source.reason}`,
        );
      return {
        healthy: source.index !== null && (stored?.healthy ?? false) && serving?.state !== 'failed',
        reason: parts.join('; '),
      };
    },
    async stop(): Promise<void> {
      controller.abort();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await watching;
      await Promise.all(dropping);
      for (const name of [...new Set([...projectors.keys(), ...indexes.keys()])]) await release(name);
    },
  };
  return collections;
}
