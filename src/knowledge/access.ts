import type { Reader } from '../commands/context.js';
import { DEFAULT_COLLECTION, type AccessLevel } from '../domain/collection/events.js';
import { COLLECTION_GRANTS, type CollectionGrantView } from '../projections/collectionsProjection.js';
import type { ReadModels } from '../projections/readModels.js';

/** Full access: what a caller without a reader is. */
const SERVICE_READER: Reader = { kind: 'service' };

/**
 * Who may see and change which collection. A collection with no grant is open to everyone; once it
 * has a grant it is private: only its grantees (read or write) and administrators see it, and only
 * `write` grantees and administrators add or delete its documents. Services see and change all.
 * Grants are read from their read model on each call (a handful of rows), so a grant or a revocation
 * holds as soon as the projection has applied it.
 */
export function createAccess(deps: { readModels: Pick<ReadModels, 'find'> }) {
  const grants = (): Promise<CollectionGrantView[]> =>
    deps.readModels.find<CollectionGrantView>(COLLECTION_GRANTS, {});
  const sees = (reader: Reader): boolean => reader.kind === 'service' || reader.admin;

  /** The collections `reader` may not see: none for services and administrators. */
  async function hiddenFrom(reader: Reader = SERVICE_READER): Promise<string[]> {
    if (sees(reader)) return [];
    const all = await grants();
    const mine = new Set(
      all.filter((grant) => grant.user === userOf(reader)).map((grant) => grant.collection),
    );
    return [...new Set(all.map((grant) => grant.collection))].filter((name) => !mine.has(name)).sort();
  }

  return {
    hiddenFrom,
    /** Whether `reader` may see the documents of `collection`. */
    async maySee(reader: Reader = SERVICE_READER, collection: string = DEFAULT_COLLECTION): Promise<boolean> {
      return sees(reader) || !(await hiddenFrom(reader)).includes(collection);
    },
    /** Whether `reader` may add documents to `collection` or delete its documents. */
    async mayWrite(
      reader: Reader = SERVICE_READER,
      collection: string = DEFAULT_COLLECTION,
    ): Promise<boolean> {
      if (sees(reader)) return true;
      const of = (await grants()).filter((grant) => grant.collection === collection);
      if (of.length === 0) return true;
      const level: AccessLevel | undefined = of.find((grant) => grant.user === userOf(reader))?.level;
      return level === 'write';
    },
  };
}

const userOf = (reader: Reader): string | null => (reader.kind === 'user' ? reader.name : null);

export type Access = ReturnType<typeof createAccess>;
