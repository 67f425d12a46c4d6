import { BlobStoreUnavailableError } from './blobStore/blobStore.js';
import { BusUnavailableError } from './bus/bus.js';
import { EventStoreUnavailableError } from './eventStore/eventStore.js';
import { ReadStoreUnavailableError } from './readStore/readStore.js';
import { VectorIndexError } from './vector/vectorIndex.js';

/**
 * Whether `error` says a store (events, read models, vectors, blobs) or the bus cannot serve now
 * (down, unreachable, or behind): the request may succeed later, so it is a 503 with `Retry-After`,
 * never a 500.
 */
export function isServiceUnavailable(error: unknown): error is Error {
  return (
    error instanceof EventStoreUnavailableError ||
    error instanceof ReadStoreUnavailableError ||
    error instanceof BusUnavailableError ||
    error instanceof BlobStoreUnavailableError ||
    (error instanceof VectorIndexError && error.code === 'unavailable')
  );
}
