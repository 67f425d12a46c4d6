import { BrandedError } from '../brandedError.js';

/**
 * The read side: collections of JSON documents that projections write and queries read.
 *
 * The query language is a deliberately small subset of MongoDB's, so the embedded SQLite adapter and
 * the MongoDB adapter answer every query the same way: equality, `$ne`, `$in`, `$nin`, ranges and
 * `$exists` on scalar fields (dotted paths reach into objects), sort, skip and limit. Full-text search
 * covers the fields a collection declares, with a normaliser applied to indexed text and queries
 * alike (Arabic needs one).
 */
export interface ReadStore {
  /** Creates the collection, its indexes and its text index if needed. Idempotent. */
  ensureCollection(spec: CollectionSpec): Promise<void>;
  /** Removes a collection with all its documents and indexes. */
  dropCollection(name: string): Promise<void>;
  get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null>;
  /** The documents with these ids that exist, in no particular order (ids may repeat; each doc comes once). */
  getMany<T extends Doc = Doc>(collection: string, ids: readonly string[]): Promise<T[]>;
  find<T extends Doc = Doc>(collection: string, query?: FindQuery): Promise<T[]>;
  count(collection: string, filter?: Filter): Promise<number>;
  /** How many documents have each value of `field` (documents without it count under `null`). */
  countBy(collection: string, field: string, filter?: Filter): Promise<GroupCount[]>;
  /** Best matches first. By default every term must occur (after normalisation); see `SearchOptions.match`. */
  search<T extends Doc = Doc>(
    collection: string,
    text: string,
    options?: SearchOptions,
  ): Promise<Array<SearchHit<T>>>;
  /**
   * Applies the operations in order. The embedded adapter applies them atomically (all or none);
   * distributed adapters apply them in order, at least once, so projections must be idempotent.
   * `fence` and `expect` operations are preconditions: when one does not hold, nothing of the
   * batch is applied and `write` rejects with `WriteConflictError` (the embedded adapter checks
   * them in the batch's transaction; MongoDB checks them just before applying the batch).
   */
  write(operations: readonly WriteOperation[]): Promise<void>;
  /**
   * Takes or renews a named lease for `owner`: null while another owner holds an unexpired one.
   * The lease's epoch grows each time it changes hands (not when its holder renews it), so a
   * write fenced with an older epoch is refused once someone else has taken over.
   */
  acquireLease(name: string, owner: string, ttlMs: number): Promise<Lease | null>;
  /** Lets `owner`'s lease go (it expires at once); its epoch is kept, so the next holder's is higher. */
  releaseLease(name: string, owner: string): Promise<void>;
  /** Who holds a lease and until when (also an expired one); null when it was never taken. */
  readLease(name: string): Promise<(Lease & { expiresAt: number }) | null>;
  /**
   * Makes deleted content unrecoverable from the store's own files (SQLite: truncates the WAL,
   * which keeps older copies of pages). Costly: call it once for a batch of deletions.
   */
  scrub(): Promise<void>;
  health(): Promise<{ healthy: boolean; reason: string | null }>;
  close(): Promise<void>;
}

export type Scalar = string | number | boolean | null;

export interface Lease {
  name: string;
  owner: string;
  /** Grows by one each time the lease changes hands; the fencing token of its holder's writes. */
  epoch: number;
}

/** A stored document: JSON with a string `id`. */
export type Doc = { id: string } & Record<string, unknown>;

export interface CollectionSpec {
  /** Lower-case letters, digits and `_`, starting with a letter. */
  name: string;
  /** Fields (dotted paths) to index for filtering and sorting. */
  indexes?: readonly string[];
  /** Fields (dotted paths, string values) searched by `search`. */
  textFields?: readonly string[];
  /**
   * Match-any searches are this collection's hot path (retrieval): a store that can keep its text
   * index in memory prepares it as soon as the collection is declared, not on the first search.
   */
  searchHot?: boolean;
}

export type Condition =
  | Scalar
  | {
      $eq?: Scalar;
      $ne?: Scalar;
      $in?: readonly Scalar[];
      $nin?: readonly Scalar[];
      $gt?: string | number;
      $gte?: string | number;
      $lt?: string | number;
      $lte?: string | number;
      $exists?: boolean;
    };

/** Field path → condition; all must hold. `{ f: null }` matches a missing field too, as in MongoDB. */
export type Filter = Record<string, Condition>;

export interface FindQuery {
  filter?: Filter;
  /** Field path and direction (1 ascending, -1 descending), applied in order. */
  sort?: ReadonlyArray<readonly [string, 1 | -1]>;
  skip?: number;
  limit?: number;
}

export interface SearchOptions {
  filter?: Filter;
  /**
   * `all` (default): every term must occur, the last one may be a prefix (search-as-you-type).
   * `any`: documents with at least one term, ranked by BM25 — what retrieval wants from a question.
   * Stop words ("the", "how", "في"…) are left out of an `any` query that has other terms.
   */
  match?: 'all' | 'any';
  skip?: number;
  limit?: number;
  /**
   * With a filter: rank only the newest `rankNewest` documents (in write order) that match and pass
   * the filter, so a query whose terms occur in most documents costs a bounded amount. An adapter
   * that ranks every match cheaply may ignore it (the MongoDB adapter does).
   */
  rankNewest?: number;
}

export interface SearchHit<T extends Doc> {
  doc: T;
  /** Higher is better; comparable only within one result list. */
  score: number;
}

export interface GroupCount {
  value: Scalar;
  count: number;
}

export type WriteOperation =
  /** Inserts or replaces the whole document. */
  | { op: 'upsert'; collection: string; doc: Doc }
  /** Sets top-level fields of an existing document (`undefined` removes a field); no-op when absent. */
  | { op: 'patch'; collection: string; id: string; set: Record<string, unknown> }
  | { op: 'delete'; collection: string; id: string }
  | { op: 'deleteWhere'; collection: string; filter: Filter }
  /**
   * Precondition: `owner` still holds `lease` at `epoch` (an expired lease nobody has taken since
   * still counts). Keeps a holder that lost its lease — paused past its expiry — from writing.
   */
  | { op: 'fence'; lease: string; owner: string; epoch: number }
  /** Precondition: the document has these field values; `fields: null` means it does not exist. */
  | { op: 'expect'; collection: string; id: string; fields: Record<string, Scalar> | null };

/** A precondition of a write (`fence`, `expect`) did not hold: nothing of the batch was applied. */
export class WriteConflictError extends BrandedError {
  override readonly name = 'WriteConflictError';
  constructor(
    readonly reason: 'fenced' | 'unexpected',
    message: string,
  ) {
    super(message);
  }
}

/** Whether a document (or its absence) meets an `expect` precondition. */
export function meetsExpectation(doc: Doc | null, fields: Record<string, Scalar> | null): boolean {
  if (fields === null) return doc === null;
  return doc !== null && Object.entries(fields).every(([key, value]) => (doc[key] ?? null) === value);
}

/** The query or write cannot be expressed in the supported subset (a programming error, not user input). */
export class UnsupportedQueryError extends BrandedError {
  override readonly name = 'UnsupportedQueryError';
}

/** The store cannot be reached. Safe to retry later. */
export class ReadStoreUnavailableError extends BrandedError {
  override readonly name = 'ReadStoreUnavailableError';
}

const COLLECTION_NAME = /^[a-z][a-z0-9_]{0,62}$/;
const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

export function assertCollectionName(name: string): void {
  if (!COLLECTION_NAME.test(name))
    throw new UnsupportedQueryError(`invalid collection name: ${JSON.stringify(name)}`);
}

export function assertFieldPath(path: string): void {
  if (!FIELD_PATH.test(path)) throw new UnsupportedQueryError(`invalid field path: ${JSON.stringify(path)}`);
}
