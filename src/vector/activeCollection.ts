import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WriteConflictError, type Doc, type ReadStore } from '../readStore/readStore.js';
import { onceSucceeded } from '../onceSucceeded.js';

/**
 * Which vector collection search reads. A collection is built beside the active one (a new embedding
 * model, a new index version, `archivist rebuild`) and becomes active only once it holds the whole
 * log; until then search keeps to the active one.
 */
export interface ActiveCollection {
  collection: string;
  /** The embedder space its vectors are in (`Embedder.space`): queries must be embedded in it too. */
  space: string;
  dimensions: number;
  /** Grows by one with every switch: a builder switches only from the record it started from. */
  generation: number;
  /** Earlier collections switched away from, still to be dropped (by a process that no longer reads them). */
  retired: string[];
  switchedAt: string;
}

/**
 * Where the active collection is recorded: beside the vectors it names, so every process that
 * searches them reads the same record.
 */
export interface ActiveCollectionStore {
  read(): Promise<ActiveCollection | null>;
  /**
   * Writes `next` if the record is still at generation `expected` (null: no record yet); false,
   * writing nothing, when it moved on meanwhile.
   */
  replace(next: ActiveCollection, expected: number | null): Promise<boolean>;
}

const ACTIVE_RECORD_FILE = 'active.json';

/**
 * The embedded record: `<dir>/active.json`, replaced atomically (written aside, flushed, renamed).
 * One process owns the data folder; the CLI's `rebuild` beside it compares and writes within a
 * few microseconds, which is the only window two writers have.
 */
export function createFileActiveCollectionStore(dir: string): ActiveCollectionStore {
  const path = join(dir, ACTIVE_RECORD_FILE);
  const read = (): ActiveCollection | null =>
    existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as ActiveCollection) : null;
  return {
    async read() {
      return read();
    },
    async replace(next, expected) {
      if ((read()?.generation ?? null) !== expected) return false;
      mkdirSync(dir, { recursive: true });
      const temporary = `${path}.partial`;
      writeFileSync(temporary, JSON.stringify(next), { flush: true });
      renameSync(temporary, path);
      return true;
    },
  };
}

const ACTIVE_RECORD_COLLECTION = 'sys_vector_collections';
const ACTIVE_ID = 'active';

/**
 * The shared record (Milvus): a document of the read store, replaced under an `expect` precondition
 * on its generation, so of two processes switching from the same record only one succeeds.
 */
export function createReadStoreActiveCollectionStore(store: ReadStore): ActiveCollectionStore {
  const init = onceSucceeded(() => store.ensureCollection({ name: ACTIVE_RECORD_COLLECTION }));
  return {
    async read() {
      await init();
      const doc = await store.get(ACTIVE_RECORD_COLLECTION, ACTIVE_ID);
      if (!doc) return null;
      const { id: _id, ...record } = doc;
      return record as unknown as ActiveCollection;
    },
    async replace(next, expected) {
      await init();
      try {
        await store.write([
          {
            op: 'expect',
            collection: ACTIVE_RECORD_COLLECTION,
            id: ACTIVE_ID,
            fields: expected === null ? null : { generation: expected },
          },
          { op: 'upsert', collection: ACTIVE_RECORD_COLLECTION, doc: { id: ACTIVE_ID, ...next } as Doc },
        ]);
        return true;
      } catch (error) {
        if (error instanceof WriteConflictError) return false;
        throw error;
      }
    },
  };
}
