import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import type { ReadStore } from '../readStore/readStore.js';
import {
  createFileActiveCollectionStore,
  createReadStoreActiveCollectionStore,
  type ActiveCollectionStore,
} from '../vector/activeCollection.js';
import { openEmbeddedIndex } from '../vector/embeddedIndex.js';
import { ScanThread } from '../vector/scanThread.js';
import { createMilvusIndex } from '../vector/milvusIndex.js';
import { parseMilvusUrl } from '../vector/milvusUrl.js';
import type { VectorIndex } from '../vector/vectorIndex.js';

export interface VectorStoreOptions {
  dataDir: string;
  exactSearchBelow: number;
  /** From this many vectors an embedded collection is scanned in worker threads; 0: never. */
  scanThreadFrom?: number;
  milvus: { url: string; token: string | null } | null;
  readStore: ReadStore;
  log: Logger;
}

/**
 * The configured vector store as collections: open one, drop one, and where the active one is
 * recorded — a file beside the embedded collections (`DATA_DIR/vectors/active.json`), or a document
 * of the shared read store for Milvus, which every process reads.
 */
export interface VectorStore {
  open(collection: string, dimensions: number): VectorIndex;
  drop(collection: string): Promise<void>;
  records: ActiveCollectionStore;
  /** Several processes read the index one of them writes (Milvus). */
  shared: boolean;
  /** The embedded index's folder of a collection, or the Milvus URL without credentials. */
  path(collection: string): string;
}

export function openVectorStore(options: VectorStoreOptions): VectorStore {
  const { milvus, log } = options;
  const dir = join(options.dataDir, 'vectors');
  if (milvus) {
    const open = (collection: string, dimensions: number): VectorIndex =>
      createMilvusIndex({ url: milvus.url, token: milvus.token, collection, dimensions, log });
    return {
      open,
      // `drop` creates nothing: the dimensions of a collection that is only dropped do not matter.
      drop: (collection) => open(collection, 1).drop(),
      records: createReadStoreActiveCollectionStore(options.readStore),
      shared: true,
      path: () => parseMilvusUrl(milvus.url).display,
    };
  }
  const from = options.scanThreadFrom ?? 0;
  // One set of scan threads for every collection of the process (blue-green keeps two while switching).
  const thread = new ScanThread((error) =>
    log.error(
      { err: error.message },
      'a vector scan thread failed: scans run on the main thread from now on',
    ),
  );
  const scanThread = from > 0 ? { thread, from } : null;
  return {
    open: (collection, dimensions) =>
      openEmbeddedIndex({ dir, collection, dimensions, exactBelow: options.exactSearchBelow, scanThread }),
    drop: (collection) => rm(join(dir, collection), { recursive: true, force: true }),
    records: createFileActiveCollectionStore(dir),
    shared: false,
    path: (collection) => join(dir, collection),
  };
}
