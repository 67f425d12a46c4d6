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
import { claimVectorFolder, type VectorFolder } from '../vector/vectorFolder.js';
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
  /**
   * `DATA_DIR/vectors` without claiming it: `archivist rebuild` writes a new collection there beside
   * a running server (which holds it) and switches the record the server follows.
   */
  primaryFolder?: boolean;
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
  /** Releases the embedded folder (a replica's is removed); the indexes are closed first. */
  close(): void;
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
      close: () => undefined,
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
  // Claimed when first used: a process that never searches or follows the log takes no folder.
  let folder: VectorFolder | null = null;
  let closed = false;
  const folderDir = (): string => {
    // Claiming again after `close` would hold the folder for good: the next store of this process
    // (a restart in the same process) would then find it held and keep a replica instead.
    if (closed) throw new Error('the embedded vector store is closed');
    if (!folder) {
      folder = options.primaryFolder
        ? { dir, replica: false, release: () => undefined }
        : claimVectorFolder(options.dataDir);
      if (folder.replica) {
        log.info(
          { folder: folder.dir, held: dir },
          'another process holds the embedded vector folder: this process keeps its own replica',
        );
      }
    }
    return folder.dir;
  };
  const records = (): ActiveCollectionStore => createFileActiveCollectionStore(folderDir());
  return {
    open: (collection, dimensions) =>
      openEmbeddedIndex({
        dir: folderDir(),
        collection,
        dimensions,
        exactBelow: options.exactSearchBelow,
        scanThread,
      }),
    drop: (collection) => rm(join(folderDir(), collection), { recursive: true, force: true }),
    records: {
      read: async () => records().read(),
      replace: async (next, expected) => records().replace(next, expected),
    },
    shared: false,
    path: (collection) => join(folderDir(), collection),
    close() {
      closed = true;
      folder?.release();
      folder = null;
    },
  };
}
