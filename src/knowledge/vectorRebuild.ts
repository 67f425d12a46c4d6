import { holdLease } from '../logProcessing/fencedLease.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import type { Embedder } from '../models/embedder.js';
import type { ReadStore } from '../readStore/readStore.js';
import type { ActiveCollection } from '../vector/activeCollection.js';
import { collectionName } from '../vector/vectorIndex.js';
import type { EmbeddingCache } from './embeddingCache.js';
import { ofBase, rebuildNumber, VECTOR_INDEX_VERSION } from './vectorCollections.js';
import { createVectorProjector } from './vectorProjector.js';
import type { VectorStore } from './vectorStore.js';

export interface VectorRebuildOptions {
  store: VectorStore;
  embedder: Embedder;
  embeddings: EmbeddingCache;
  eventStore: EventStore;
  /** For the lease of a shared collection while it is built. */
  readStore: ReadStore;
  owner: string;
  log: Logger;
  /**
   * Claims the vectors for this process alone, when no server reads them (embedded: the data folder's
   * lock); the release, or null when a server may be reading the replaced collection (it drops it).
   */
  exclusive(): (() => void) | null;
  onProgress?(position: number, head: number): void;
}

export interface VectorRebuildResult {
  collection: string;
  previous: string | null;
  vectors: number;
  /** Whether the replaced collection was dropped here (otherwise the running server drops it). */
  dropped: boolean;
}

/**
 * `archivist rebuild` for the vector index: a fresh collection `<base>_r<n>` (n one more than the
 * active one's) built beside the active one from the whole log, its vectors from the embedding
 * cache (the embedder is called only for text the cache lacks), then made active; the one it
 * replaces is dropped at once when no server runs, else by the server when it takes up the new one.
 */
export async function rebuildVectors(options: VectorRebuildOptions): Promise<VectorRebuildResult> {
  const { store, embedder, log } = options;
  const base = collectionName(embedder.space, VECTOR_INDEX_VERSION);
  const record = await store.records.read();
  // Data from before the record existed: the base collection is the one in use.
  const previous = record?.collection ?? base;
  const number = record && ofBase(record.collection, base) ? rebuildNumber(record.collection, base) + 1 : 1;
  const collection = `${base}_r${number}`;
  // What an interrupted rebuild of this number left is built again from nothing.
  await store.drop(collection);
  const index = store.open(collection, embedder.dimensions);
  const lease = `vectors:${collection}`;
  const projector = createVectorProjector({
    eventStore: options.eventStore,
    index,
    embedder,
    embeddings: options.embeddings,
    log,
    ...(store.shared ? { lease: () => holdLease(options.readStore, lease, options.owner, 15_000) } : {}),
    // Cache entries are the server's to forget (its projector sees the deletions too).
    hashesInUse: async () => null,
  });
  projector.start();
  try {
    for (;;) {
      const head = await options.eventStore.headPosition();
      if (await projector.waitFor(head, 1_000)) break;
      const status = projector.status();
      if (status.state === 'stopped') throw new Error(`the rebuild of ${collection} stopped`);
      options.onProgress?.(status.position, head);
    }
  } finally {
    await projector.stop();
  }
  const next: ActiveCollection = {
    collection,
    space: embedder.space,
    dimensions: embedder.dimensions,
    generation: (record?.generation ?? 0) + 1,
    retired: [...(record?.retired ?? []).filter((name) => name !== previous), previous],
    switchedAt: new Date().toISOString(),
  };
  const vectors = await index.count();
  await index.close();
  if (!(await store.records.replace(next, record?.generation ?? null))) {
    await store.drop(collection);
    throw new Error('the active vector collection changed during the rebuild; nothing was switched');
  }
  let dropped = false;
  const release = options.exclusive();
  if (release) {
    try {
      for (const name of next.retired) await store.drop(name);
      await store.records.replace({ ...next, retired: [] }, next.generation);
      dropped = true;
    } finally {
      release();
    }
  }
  return { collection, previous, vectors, dropped };
}
