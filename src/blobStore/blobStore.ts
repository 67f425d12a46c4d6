import { BrandedError } from '../brandedError.js';

/**
 * Where uploaded bytes wait for the ingestion job that reads them, between the API process that
 * received them and the worker (maybe on another host) that ingests them. A blob is written once,
 * read by name, and removed once its job has finished with it; blobs are never changed in place.
 *
 * Semantics every adapter keeps (`test/contracts/blobStore.contract.ts`):
 * - names are chosen by the store (random UUIDs) and never reused; a name that is not one the store
 *   could have chosen is refused before it reaches the storage (no path or subject of its own);
 * - a blob is visible whole or not at all: a crash or an outage during `put` leaves no blob that a
 *   `get` could return half of;
 * - `BlobStoreUnavailableError` means the storage cannot serve now (down, unreachable, not answering
 *   in time): the call may succeed later, so it is a 503 for a request and a retry for a job.
 */
export interface BlobStore {
  /**
   * Stores `bytes` (read while the call runs: do not change them before it settles) and resolves
   * with the new blob's name once the blob is durable.
   */
  put(bytes: Uint8Array): Promise<string>;
  /** The blob's bytes, exactly as stored; `BlobMissingError` when it is gone or `name` is invalid. */
  get(name: string): Promise<Buffer>;
  /**
   * Removes the blob; removing one that is gone is no error (a redelivered job deletes again).
   * An invalid name is refused with `BlobMissingError`, as for `get`.
   */
  delete(name: string): Promise<void>;
  /** Whether the store can serve now, and why not when it cannot. Never rejects. */
  health(): Promise<{ healthy: boolean; reason: string | null }>;
  /** Releases what the store holds (its connection); later calls reject with `BlobStoreUnavailableError`. */
  close(): Promise<void>;
}

/** The blob is gone (deleted, never stored), or the name is not a blob name at all. */
export class BlobMissingError extends BrandedError {
  override readonly name = 'BlobMissingError';
}

/** The blob store cannot be reached or did not answer in time. Safe to retry later. */
export class BlobStoreUnavailableError extends BrandedError {
  override readonly name = 'BlobStoreUnavailableError';
}

/** What `randomUUID` gives: the only names a store hands out. */
const BLOB_NAME = /^[0-9a-f-]{36}$/;

/**
 * Refuses a name the store could not have given before it is used as a path or subject: a name
 * comes back from a job payload or a request, so it may be anything (`../etc/passwd`, wildcards).
 */
export function assertBlobName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !BLOB_NAME.test(name)) {
    const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : typeof name;
    throw new BlobMissingError(`invalid blob name ${shown}`);
  }
}
