import type { RecordedEvent } from '../eventStore/eventStore.js';
import type { CollectionSpec, Doc, Filter } from '../readStore/readStore.js';

/**
 * A read model derived from events. `apply` must be deterministic and idempotent (applying an
 * event twice gives the same documents), because distributed read stores apply at least once.
 * A change to what `apply` produces needs a new `version`: it is then built beside the old one and
 * takes over when it has caught up.
 */
export interface Projection {
  /** Lower-case, unique. */
  name: string;
  version: number;
  /** Event types `apply` receives; other events only advance the checkpoint. */
  handles: readonly string[];
  /** Collections this projection owns, by logical name (each owned by one projection). */
  collections: readonly CollectionSpec[];
  apply(event: RecordedEvent, view: ProjectionView): void | Promise<void>;
}

/** What `apply` can do to its collections; reads see the writes made earlier in the same batch. */
export interface ProjectionView {
  get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null>;
  put(collection: string, doc: Doc): void;
  /** Sets top-level fields of an existing document (`undefined` removes one); no-op when absent. */
  patch(collection: string, id: string, set: Record<string, unknown>): Promise<void>;
  delete(collection: string, id: string): void;
  deleteWhere(collection: string, filter: Filter): void;
}
