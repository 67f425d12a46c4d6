import type { AnyBulkWriteOperation, Collection } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { silentLogger, type Logger } from '../log.js';
import { SEARCH_STOP_WORDS } from '../text/stopWords.js';
import { openMongoConnection } from './mongoConnection.js';
import { isNotSupported } from './mongoErrors.js';
import { SEARCH_FIELD, decodeDoc, storedPath, toMongoFilter, toMongoSort } from './mongoDocuments.js';
import { createMongoSearch, type Page } from './mongoSearch.js';
import { termListPaths, textIndexSpec } from './mongoText.js';
import { createTextFolding } from '../text/textTokens.js';
import { serverProfile } from './mongoProfile.js';
import { applyOperations, toBulkOperation, type StoredDoc, type StoredSpec } from './mongoWrites.js';
import type {
  CollectionSpec,
  Doc,
  GroupCount,
  Lease,
  ReadStore,
  Scalar,
  WriteOperation,
} from './readStore.js';
import {
  UnsupportedQueryError,
  WriteConflictError,
  assertCollectionName,
  assertFieldPath,
  meetsExpectation,
} from './readStore.js';
import { normalizedStopWords, type TextNormalizer } from '../text/searchTerms.js';

export interface MongoReadStoreOptions {
  /** A MongoDB connection string (MongoDB, or FerretDB which speaks its protocol). */
  url: string;
  database: string;
  /** Applied to indexed text and to search queries. Default: identity. */
  normalizeText?: TextNormalizer;
  /** Left out of `any` queries that have other terms. Default: the English and Arabic list. */
  stopWords?: Iterable<string>;
  log?: Logger;
  /**
   * Whether to use a MongoDB text index where the server has them (default true). False keeps to
   * the terms method everywhere, which lets tests exercise it on a server that has `$text`.
   */
  textIndex?: boolean;
  /** How long a call waits for a server it has not reached yet (default 2,000 ms). */
  serverSelectionTimeoutMs?: number;
  /** Most documents the terms method scores for one search (default 20,000; the rest are ignored). */
  maxTextCandidates?: number;
}

const SPECS = '_collections';
const LEASES = '_leases';
const TEXT_INDEX = '_search_text';
// How long "no spec recorded" is believed before asking again (another process may declare it).
const MISSING_SPEC_TTL_MS = 1_000;

/**
 * The distributed read store: one MongoDB collection per collection, `_id` = the document's id,
 * indexes as declared, and per text field a short list of normalised terms with their counts (in
 * `_search`, never returned). Search uses a text index where the server has one (MongoDB) and
 * otherwise matches terms and scores with BM25 in code (FerretDB); the capability is found by trying.
 * Writes go as ordered bulk writes per run of operations on one collection: in order, at least once,
 * not atomic across documents.
 */
export function createMongoReadStore(options: MongoReadStoreOptions): ReadStore {
  const log = options.log ?? silentLogger;
  const connection = openMongoConnection({
    url: options.url,
    database: options.database,
    log,
    ...(options.serverSelectionTimeoutMs === undefined
      ? {}
      : { serverSelectionTimeoutMs: options.serverSelectionTimeoutMs }),
  });
  const { db, run } = connection;
  const fold = createTextFolding(options.normalizeText ?? ((text: string) => text));
  const specs = new Map<string, { spec: StoredSpec | null; at: number }>();
  // Found once by trying: null until a text collection is first declared.
  let serverHasTextIndexes: boolean | null = options.textIndex === false ? false : null;

  const specCollection = (): Collection<StoredSpec> => db().collection<StoredSpec>(SPECS);
  const leaseCollection = (): Collection<{ _id: string; owner: string; expiresAt: number; epoch?: number }> =>
    db().collection(LEASES);

  /** Preconditions of a batch, checked before any of it is applied (not atomically with it). */
  async function checkPreconditions(operations: readonly WriteOperation[]): Promise<void> {
    for (const operation of operations) {
      if (operation.op === 'fence') {
        const lease = await leaseCollection().findOne({ _id: operation.lease });
        if (lease?.owner !== operation.owner || (lease.epoch ?? 1) !== operation.epoch) {
          throw new WriteConflictError(
            'fenced',
            `lease ${operation.lease} is no longer held by ${operation.owner} at epoch ${operation.epoch}`,
          );
        }
      } else if (operation.op === 'expect') {
        const stored = await db().collection<StoredDoc>(operation.collection).findOne({ _id: operation.id });
        if (!meetsExpectation(stored ? decodeDoc(stored) : null, operation.fields)) {
          throw new WriteConflictError(
            'unexpected',
            `${operation.collection}/${operation.id} changed meanwhile`,
          );
        }
      }
    }
  }

  async function specFor(name: string): Promise<StoredSpec | null> {
    const cached = specs.get(name);
    if (cached && (cached.spec || Date.now() - cached.at < MISSING_SPEC_TTL_MS)) return cached.spec;
    const spec = await specCollection().findOne({ _id: name });
    specs.set(name, { spec, at: Date.now() });
    return spec;
  }

  const profile = serverProfile(db);

  async function createTextIndex(collection: Collection, fieldCount: number): Promise<boolean> {
    if (serverHasTextIndexes === false) return false;
    const { key, weights } = textIndexSpec(fieldCount);
    const create = () =>
      collection.createIndex(key, {
        name: TEXT_INDEX,
        weights,
        // Terms are already normalised and stemmed (Porter, as the embedded store's tokenizer), and
        // stop words are the search's business: the index must do neither. The override field must
        // not be a document field (a `language` field would otherwise pick the language per document).
        default_language: 'none',
        language_override: '_search_language',
      });
    try {
      try {
        await create();
      } catch (error) {
        // IndexOptionsConflict / IndexKeySpecsConflict: the text fields changed since last time.
        if (!(error instanceof MongoServerError && (error.code === 85 || error.code === 86))) throw error;
        await collection.dropIndex(TEXT_INDEX);
        await create();
      }
      serverHasTextIndexes = true;
      return true;
    } catch (error) {
      if (!isNotSupported(error)) throw error;
      serverHasTextIndexes = false;
      log.info(
        { reason: (error as Error).message },
        'no MongoDB text indexes on this server: search matches terms',
      );
      return false;
    }
  }

  const search = createMongoSearch({
    db,
    log,
    fold,
    stopWords: normalizedStopWords(options.stopWords ?? SEARCH_STOP_WORDS, fold),
    useTextIndex: options.textIndex !== false,
    profile,
    maxCandidates: options.maxTextCandidates ?? 20_000,
  });

  const pageOf = (skip: number | undefined, limit: number | undefined): Page => ({
    skip: Math.max(0, Math.floor(skip ?? 0)),
    // As in SQL: a negative limit means none; 0 (which MongoDB reads as "no limit") means no rows.
    limit: limit === undefined || limit < 0 ? undefined : Math.floor(limit),
  });

  return {
    async ensureCollection(spec: CollectionSpec) {
      assertCollectionName(spec.name);
      const indexes = [...(spec.indexes ?? [])];
      const textFields = [...(spec.textFields ?? [])];
      indexes.forEach(assertFieldPath);
      textFields.forEach(assertFieldPath);
      // No deadline: building an index on a large collection may take minutes.
      await run(async () => {
        const collection = db().collection(spec.name);
        const textIndex = textFields.length > 0 && (await createTextIndex(collection, textFields.length));
        const keys = [
          ...indexes.filter((path) => path !== 'id').map(storedPath),
          // Term lists exist only beside a text index (MongoDB); FerretDB would not use an index.
          ...(textIndex ? termListPaths(textFields.length) : []),
        ];
        // One index per command: FerretDB v1 panics on a createIndexes naming two or more indexes
        // that already exist, which is every start after the first.
        for (const key of keys) await collection.createIndex({ [key]: 1 });
        const stored: StoredSpec = { _id: spec.name, indexes, textFields, textIndex };
        const record = () => specCollection().replaceOne({ _id: spec.name }, stored, { upsert: true });
        // Processes starting together declare the same collections at once. An upsert that loses
        // the race to insert fails with a duplicate key where the server does not retry it (FerretDB;
        // MongoDB retries it itself): the document exists now, so the second try replaces it.
        await record().catch((error: unknown) => {
          if (error instanceof MongoServerError && error.code === 11000) return record();
          throw error;
        });
        specs.set(spec.name, { spec: stored, at: Date.now() });
      }, null);
    },

    async dropCollection(name) {
      assertCollectionName(name);
      await run(async () => {
        await db()
          .collection(name)
          .drop()
          .catch((error: unknown) => {
            // NamespaceNotFound on servers before MongoDB 7: nothing to drop.
            if (!(error instanceof MongoServerError && error.code === 26)) throw error;
          });
        await specCollection().deleteOne({ _id: name });
        specs.delete(name);
      });
    },

    async get<T extends Doc>(name: string, id: string) {
      assertCollectionName(name);
      const stored = await run(() =>
        db()
          .collection<StoredDoc>(name)
          .findOne({ _id: id }, { projection: { [SEARCH_FIELD]: 0 } }),
      );
      return stored ? decodeDoc<T>(stored) : null;
    },

    async getMany<T extends Doc>(name: string, ids: readonly string[]) {
      assertCollectionName(name);
      const unique = [...new Set(ids)];
      if (unique.length === 0) return [];
      const rows = await run(() =>
        db()
          .collection<StoredDoc>(name)
          .find({ _id: { $in: unique } }, { projection: { [SEARCH_FIELD]: 0 } })
          .toArray(),
      );
      return rows.map((row) => decodeDoc<T>(row));
    },

    async find<T extends Doc>(name: string, query: Parameters<ReadStore['find']>[1] = {}) {
      assertCollectionName(name);
      const filter = toMongoFilter(query.filter);
      const sort = toMongoSort(query.sort);
      const { skip, limit } = pageOf(query.skip, query.limit);
      if (limit === 0) return [];
      const rows = await run(() =>
        db()
          .collection(name)
          .find(filter, { projection: { [SEARCH_FIELD]: 0 }, sort, skip, ...(limit ? { limit } : {}) })
          .toArray(),
      );
      return rows.map((row) => decodeDoc<T>(row));
    },

    async count(name, filter) {
      assertCollectionName(name);
      const query = toMongoFilter(filter);
      return run(() => db().collection(name).countDocuments(query));
    },

    async countBy(name, field, filter): Promise<GroupCount[]> {
      assertCollectionName(name);
      const match = toMongoFilter(filter);
      const path = storedPath(field);
      const groups = await run(() =>
        db()
          .collection(name)
          .aggregate<{ _id: unknown; count: number }>([
            { $match: match },
            { $group: { _id: `$${path}`, count: { $sum: 1 } } },
          ])
          .toArray(),
      );
      // Objects and arrays count under null, as in the embedded store.
      const counts = new Map<Scalar, number>();
      for (const group of groups) {
        const value = group._id;
        const key: Scalar =
          typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : null;
        counts.set(key, (counts.get(key) ?? 0) + group.count);
      }
      return [...counts]
        .map(([value, count]) => ({ value, count }))
        .sort((a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value)));
    },

    async search<T extends Doc>(
      name: string,
      text: string,
      searchOptions: Parameters<ReadStore['search']>[2] = {},
    ) {
      assertCollectionName(name);
      const filter = toMongoFilter(searchOptions.filter);
      const page = pageOf(searchOptions.skip, searchOptions.limit ?? 20);
      return run(async () => {
        const spec = await specFor(name);
        if (!spec) return [];
        if (spec.textFields.length === 0)
          throw new UnsupportedQueryError(`collection ${name} has no text fields`);
        return search<T>(name, spec, text, filter, page, searchOptions.match);
      });
    },

    async write(operations) {
      if (operations.length === 0) return;
      for (const operation of operations)
        if (operation.op !== 'fence') assertCollectionName(operation.collection);
      await run(async () => {
        await checkPreconditions(operations);
        // Build everything first, so that an invalid operation stops the batch before any of it runs.
        const runs: Array<{ name: string; operations: AnyBulkWriteOperation<StoredDoc>[] }> = [];
        for (const operation of operations) {
          if (operation.op === 'fence' || operation.op === 'expect') continue;
          const spec = await specFor(operation.collection);
          const built = toBulkOperation(operation, spec, fold);
          if (!built) continue;
          const last = runs.at(-1);
          if (last?.name === operation.collection) last.operations.push(built);
          else runs.push({ name: operation.collection, operations: [built] });
        }
        const server = await profile();
        for (const batch of runs)
          await applyOperations(db().collection<StoredDoc>(batch.name), batch.operations, server);
      });
    },

    async acquireLease(name, owner, ttlMs) {
      const now = Date.now();
      return run(async (): Promise<Lease | null> => {
        const leases = leaseCollection();
        // Ours already: renew, same epoch.
        const renewed = await leases.findOneAndUpdate(
          { _id: name, owner },
          { $set: { expiresAt: now + ttlMs } },
          { returnDocument: 'after' },
        );
        if (renewed) return { name, owner, epoch: renewed.epoch ?? 1 };
        // Someone else's but expired: take it over with the next epoch.
        const taken = await leases.findOneAndUpdate(
          { _id: name, expiresAt: { $lte: now } },
          { $set: { owner, expiresAt: now + ttlMs }, $inc: { epoch: 1 } },
          { returnDocument: 'after' },
        );
        if (taken) return { name, owner, epoch: taken.epoch ?? 1 };
        try {
          await leases.insertOne({ _id: name, owner, expiresAt: now + ttlMs, epoch: 1 });
          return { name, owner, epoch: 1 };
        } catch (error) {
          // Held by someone else (or created by a concurrent caller): not acquired.
          if (error instanceof MongoServerError && error.code === 11000) return null;
          throw error;
        }
      });
    },

    async releaseLease(name, owner) {
      await run(() => leaseCollection().updateOne({ _id: name, owner }, { $set: { expiresAt: 0 } }));
    },

    async readLease(name) {
      const lease = await run(() => leaseCollection().findOne({ _id: name }));
      return lease ? { name, owner: lease.owner, epoch: lease.epoch ?? 1, expiresAt: lease.expiresAt } : null;
    },

    async scrub() {
      // The server owns its files: deleted documents are gone from queries, and its storage engine
      // reuses their space. Nothing an application can do here.
    },

    async health() {
      try {
        await run(() => db().command({ ping: 1 }));
        return { healthy: true, reason: null };
      } catch (error) {
        return { healthy: false, reason: (error as Error).message };
      }
    },

    close: () => connection.close(),
  };
}
