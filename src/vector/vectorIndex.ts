import { BrandedError } from '../brandedError.js';

export interface VectorRecord {
  id: string;
  docId: string;
  vector: Float32Array;
}

export interface VectorHit {
  id: string;
  docId: string;
  /** Cosine similarity (vectors are normalised): higher is closer, at most 1. */
  score: number;
}

export interface VectorSearchOptions {
  k: number;
  /** Only vectors of these documents, when given. */
  docIds?: readonly string[];
}

/**
 * Vectors of chunks, searchable by cosine similarity. Derived data: a runner fills it from the
 * event log and records how far it got with `commit`, so every write is idempotent by id and a
 * replay after a crash never duplicates.
 */
export interface VectorIndex {
  readonly engine: 'embedded' | 'milvus';
  /** One collection per embedding model and index version (blue-green on a model switch). */
  readonly collection: string;
  readonly dimensions: number;
  /** Inserts or replaces by id. A vector of another dimension is refused (`VectorIndexError`). */
  upsert(records: readonly VectorRecord[]): Promise<void>;
  /** Unknown ids are ignored. */
  delete(ids: readonly string[]): Promise<void>;
  deleteDocument(docId: string): Promise<void>;
  search(query: Float32Array, options: VectorSearchOptions): Promise<VectorHit[]>;
  count(): Promise<number>;
  /**
   * Records `checkpoint` (the runner's resume point) for every earlier write, durable together with
   * them — at once, or within a second when an adapter groups its syncs (the embedded one does;
   * `close` makes the last one durable). A crash loses no more than replaying from the last durable
   * checkpoint puts back.
   */
  commit(checkpoint: string): Promise<void>;
  /** The last committed checkpoint; null for a new index. Writes after it may be lost on a crash. */
  checkpoint(): Promise<string | null>;
  /** Removes the collection and everything it stored. */
  drop(): Promise<void>;
  health(): Promise<{ healthy: boolean; reason: string | null }>;
  close(): Promise<void>;
}

export class VectorIndexError extends BrandedError {
  override readonly name = 'VectorIndexError';
  constructor(
    readonly code: 'dimension_mismatch' | 'unavailable' | 'corrupt' | 'closed',
    message: string,
  ) {
    super(message);
  }
}

/** Collection names are safe for file names and Milvus: letters, digits and `_`. */
export function collectionName(model: string, version: number): string {
  const slug = model
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40);
  return `chunks_${slug || 'model'}_v${version}`;
}
