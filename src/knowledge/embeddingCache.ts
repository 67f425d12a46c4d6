import { createHash } from 'node:crypto';
import type { ReadStore } from '../readStore/readStore.js';
import { onceSucceeded } from '../onceSucceeded.js';

/**
 * Vectors are derived data, not events: this cache keeps each computed embedding by (model, content
 * hash), so re-ingesting unchanged text, rebuilding the vector index or replaying after a crash never
 * calls the embedder again for text it has seen. Entries no document uses any more are deleted.
 */
export interface EmbeddingCache {
  /** The cached vectors of `model` for these content hashes (hashes not cached are absent). */
  get(model: string, hashes: readonly string[]): Promise<Map<string, Float32Array>>;
  /**
   * Caches vectors: in the store when `durable` (the default), otherwise in this process's memory
   * only, for the vector index to take soon after (their embedder computes them faster than the store
   * would give them back).
   */
  put(
    model: string,
    entries: ReadonlyArray<{ hash: string; vector: Float32Array }>,
    options?: { durable?: boolean },
  ): Promise<void>;
  /** Forgets these hashes for every model. */
  delete(hashes: readonly string[]): Promise<void>;
}

export const EMBEDDINGS_COLLECTION = 'sys_embeddings';

type Entry = { id: string; model: string; hash: string; vector: string };

/** Model ids can be long or hold any character: entries are keyed by a digest of the model id. */
function modelKey(model: string): string {
  return createHash('sha256').update(model).digest('hex').slice(0, 16);
}

function encode(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
}

function decode(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  // A copy: the decoded Buffer may sit in a shared pool at an offset a Float32Array cannot start at.
  const vector = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(vector.buffer).set(bytes);
  return vector;
}

/**
 * The cache as documents of the read store (SQLite embedded, MongoDB distributed), with the latest
 * `memoryEntries` vectors also in memory: an ingestion computes them and the vector index takes them
 * a moment later, usually in the same process.
 */
export function createReadStoreEmbeddingCache(store: ReadStore, memoryEntries = 4_096): EmbeddingCache {
  const init = onceSucceeded(() =>
    store.ensureCollection({ name: EMBEDDINGS_COLLECTION, indexes: ['hash'] }),
  );
  const id = (model: string, hash: string): string => `${modelKey(model)}:${hash}`;
  /** The latest vectors by model and hash; insertion order is age: the oldest goes first. */
  const recent = new Map<string, { hash: string; vector: Float32Array }>();
  const memoryKey = (model: string, hash: string): string => `${model}\n${hash}`;
  const remember = (model: string, hash: string, vector: Float32Array): void => {
    const key = memoryKey(model, hash);
    recent.delete(key);
    recent.set(key, { hash, vector });
    if (recent.size > memoryEntries) recent.delete(recent.keys().next().value!);
  };

  return {
    async get(model, hashes) {
      const vectors = new Map<string, Float32Array>();
      const rest: string[] = [];
      for (const hash of hashes) {
        const vector = recent.get(memoryKey(model, hash))?.vector;
        if (vector) vectors.set(hash, vector);
        else rest.push(hash);
      }
      if (rest.length === 0) return vectors;
      await init();
      const found = await store.getMany<Entry>(
        EMBEDDINGS_COLLECTION,
        rest.map((hash) => id(model, hash)),
      );
      for (const entry of found) if (entry.model === model) vectors.set(entry.hash, decode(entry.vector));
      return vectors;
    },
    async put(model, entries, options = {}) {
      if (entries.length === 0) return;
      for (const { hash, vector } of entries) remember(model, hash, vector);
      if (options.durable === false) return;
      await init();
      await store.write(
        entries.map(({ hash, vector }) => ({
          op: 'upsert' as const,
          collection: EMBEDDINGS_COLLECTION,
          doc: { id: id(model, hash), model, hash, vector: encode(vector) },
        })),
      );
    },
    async delete(hashes) {
      if (hashes.length === 0) return;
      const gone = new Set(hashes);
      for (const [key, entry] of recent) if (gone.has(entry.hash)) recent.delete(key);
      await init();
      await store.write([
        { op: 'deleteWhere', collection: EMBEDDINGS_COLLECTION, filter: { hash: { $in: [...hashes] } } },
      ]);
    },
  };
}
