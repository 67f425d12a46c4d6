import type { AnyBulkWriteOperation, Collection, Document, ReplaceOneModel } from 'mongodb';
import { MongoBulkWriteError } from 'mongodb';
import type { ServerProfile } from './mongoProfile.js';
import { SEARCH_FIELD, encodeDoc, encodeValue, storedKey, toMongoFilter } from './mongoDocuments.js';
import { patchSearchData, searchData } from './mongoText.js';
import type { WriteOperation } from './readStore.js';

/** A stored document: the id as `_id`, then the encoded fields. */
export type StoredDoc = { _id: string } & Document;

/** What `ensureCollection` recorded, so that every process writes and searches a collection alike. */
export interface StoredSpec {
  _id: string;
  indexes: string[];
  textFields: string[];
  /** The collection has a MongoDB text index over the pre-tokenised copies of its text fields. */
  textIndex: boolean;
}

/**
 * One port operation as a bulk-write operation, or null when it changes nothing. Search data is
 * derived from the values written, so no operation needs to read the document it changes.
 */
export function toBulkOperation(
  operation: WriteOperation,
  spec: StoredSpec | null,
  fold: (text: string) => string,
): AnyBulkWriteOperation<StoredDoc> | null {
  const textFields = spec?.textFields ?? [];
  const withText = spec?.textIndex ?? false;
  switch (operation.op) {
    case 'upsert': {
      const replacement = encodeDoc(operation.doc);
      if (textFields.length > 0)
        replacement[SEARCH_FIELD] = searchData(operation.doc, textFields, fold, withText);
      return { replaceOne: { filter: { _id: operation.doc.id }, replacement, upsert: true } };
    }
    case 'patch': {
      const set: Array<[string, unknown]> = [];
      const unset: Array<[string, '']> = [];
      for (const [key, value] of Object.entries(operation.set)) {
        if (key === 'id') continue;
        const encoded = encodeValue(value);
        if (encoded === undefined) unset.push([storedKey(key), '']);
        else set.push([storedKey(key), encoded]);
      }
      const text = patchSearchData(operation.set, textFields, fold, withText);
      set.push(...Object.entries(text.set));
      unset.push(...text.unset.map((path): [string, ''] => [path, '']));
      const update: Document = {};
      if (set.length > 0) update['$set'] = Object.fromEntries(set);
      if (unset.length > 0) update['$unset'] = Object.fromEntries(unset);
      if (Object.keys(update).length === 0) return null;
      return { updateOne: { filter: { _id: operation.id }, update } };
    }
    case 'delete':
      return { deleteOne: { filter: { _id: operation.id } } };
    case 'deleteWhere':
      return { deleteMany: { filter: toMongoFilter(operation.filter) } };
    case 'fence':
    case 'expect':
      // Preconditions are checked before the batch; they write nothing.
      return null;
  }
}

async function inCommands(
  collection: Collection<StoredDoc>,
  operations: AnyBulkWriteOperation<StoredDoc>[],
  profile: ServerProfile,
): Promise<void> {
  for (let start = 0; start < operations.length; start += profile.operationsPerCommand) {
    const chunk = operations.slice(start, start + profile.operationsPerCommand);
    await collection.bulkWrite(chunk, { ordered: true });
  }
}

/** Upserts as inserts, then replacements (in their order) of those whose id exists already. */
async function upsertByInserting(
  collection: Collection<StoredDoc>,
  upserts: Array<{ replaceOne: ReplaceOneModel<StoredDoc> }>,
  profile: ServerProfile,
): Promise<void> {
  const docs = upserts.map(({ replaceOne }) => ({
    ...replaceOne.replacement,
    _id: String(replaceOne.filter['_id']),
  }));
  let existing: number[] = [];
  try {
    await collection.insertMany(docs, { ordered: false });
  } catch (error) {
    if (!(error instanceof MongoBulkWriteError)) throw error;
    const failures = [error.writeErrors].flat().filter((failure) => failure !== undefined);
    // Only duplicates, each accounted for: the rest went in. A bulk error can also carry a lost
    // connection or a write concern failure with no write error at all (a server restarting): then
    // what went in is unknown, and the batch must fail, not pass as "all duplicates", or the caller
    // would record it applied (a projection's checkpoint would move past documents never written).
    const onlyDuplicates =
      failures.length > 0 &&
      failures.every((failure) => failure.code === 11000) &&
      error.insertedCount + failures.length === docs.length;
    if (!onlyDuplicates) throw error;
    existing = failures.map((failure) => failure.index).sort((a, b) => a - b);
  }
  await inCommands(
    collection,
    existing.map((index) => upserts[index]!),
    profile,
  );
}

/**
 * Applies one collection's operations in order. Where updates scan (FerretDB), a stretch of upserts
 * goes in as one insert, and only the documents that already exist are replaced.
 */
export async function applyOperations(
  collection: Collection<StoredDoc>,
  operations: AnyBulkWriteOperation<StoredDoc>[],
  profile: ServerProfile,
): Promise<void> {
  const isUpsert = (operation: AnyBulkWriteOperation<StoredDoc>) =>
    profile.scans && 'replaceOne' in operation;
  for (let start = 0; start < operations.length;) {
    // A stretch of upserts, or a stretch of anything else.
    const upserts = isUpsert(operations[start]!);
    let end = start + 1;
    while (end < operations.length && isUpsert(operations[end]!) === upserts) end += 1;
    const stretch = operations.slice(start, end);
    if (upserts)
      await upsertByInserting(
        collection,
        stretch as Array<{ replaceOne: ReplaceOneModel<StoredDoc> }>,
        profile,
      );
    else await inCommands(collection, stretch, profile);
    start = end;
  }
}
