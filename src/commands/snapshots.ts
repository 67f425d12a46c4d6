import { ReadStoreUnavailableError, type ReadStore } from '../readStore/readStore.js';
import { onceSucceeded } from '../onceSucceeded.js';

export interface Snapshot {
  /** Stream version the state includes. */
  version: number;
  /** Shape of the state (the aggregate's `snapshot.schema`). */
  schema: number;
  state: unknown;
}

/**
 * Saved aggregate states, so loading a long stream folds only its tail. A cache of what the
 * events say: losing one only costs time, and a purge deletes it with the stream.
 */
export interface SnapshotStore {
  load(stream: string): Promise<Snapshot | null>;
  save(stream: string, snapshot: Snapshot): Promise<void>;
  delete(stream: string): Promise<void>;
}

const COLLECTION = 'sys_snapshots';

/**
 * Snapshots as documents of the read store (one per stream). A read store that cannot serve is a
 * cache that misses: commands fold their streams from the event log, which alone decides them.
 */
export function createReadStoreSnapshots(store: ReadStore): SnapshotStore {
  const init = onceSucceeded(() => store.ensureCollection({ name: COLLECTION }));
  return {
    async load(stream) {
      try {
        await init();
        const doc = await store.get<{ id: string; version: number; schema: number; state: unknown }>(
          COLLECTION,
          stream,
        );
        return doc ? { version: doc.version, schema: doc.schema, state: doc.state } : null;
      } catch (error) {
        if (error instanceof ReadStoreUnavailableError) return null;
        throw error;
      }
    },
    async save(stream, snapshot) {
      await init();
      await store.write([{ op: 'upsert', collection: COLLECTION, doc: { id: stream, ...snapshot } }]);
    },
    async delete(stream) {
      await init();
      await store.write([{ op: 'delete', collection: COLLECTION, id: stream }]);
    },
  };
}
