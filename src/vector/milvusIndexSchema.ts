import { setTimeout as sleep } from 'node:timers/promises';
import type { FieldType } from '@zilliz/milvus2-sdk-node';
import type { MilvusConnection } from './milvusIndexConnection.js';
import { VectorIndexError } from './vectorIndex.js';

/** One row per vector collection: how far its runner got (the port's `commit` checkpoint). */
export const CHECKPOINTS = 'archivist_checkpoints';

/** Longest stored id (percent-encoded), in bytes. Chunk ids are `<uuid>:<index>`. */
const KEY_MAX_LENGTH = 1_024;

/**
 * Ids as Milvus stores them: everything but `A-Z a-z 0-9 - _ . :` percent-encoded (UTF-8), so a
 * filter literal never holds a quote, backslash or control character. Escaping alone is not
 * enough: Milvus Lite 2.5.1 fails an upsert whose varchar holds `'` ("internal error"), and its
 * filters do not match values holding `\n`, `\t` or other escaped control characters.
 */
export function encodeKey(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*~]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export function decodeKey(stored: string): string {
  return decodeURIComponent(stored);
}

/** A string literal for a filter expression (encoded keys hold nothing to escape; JSON quoting anyway). */
export function literal(value: string): string {
  return JSON.stringify(encodeKey(value));
}

export function literalList(values: readonly string[]): string {
  return `[${values.map(literal).join(',')}]`;
}

interface DescribedField {
  name: string;
  data_type: string;
  is_primary_key?: boolean;
  dim?: string | number;
  type_params?: ReadonlyArray<{ key: string; value: unknown }>;
}

function dimensionOf(field: DescribedField): number {
  const param = field.type_params?.find((entry) => entry.key === 'dim')?.value;
  return Number(field.dim ?? param);
}

interface Described {
  consistency_level: string;
  fields: readonly DescribedField[];
}

/** Checks that an existing collection is one of ours, of the expected dimensions. */
function checkSchema(collection: string, dimensions: number, { fields, consistency_level }: Described): void {
  const byName = new Map(fields.map((field) => [field.name, field]));
  const id = byName.get('id');
  const docId = byName.get('doc_id');
  const vector = byName.get('vector');
  if (!id?.is_primary_key || id.data_type !== 'VarChar' || docId?.data_type !== 'VarChar' || !vector) {
    throw new VectorIndexError(
      'corrupt',
      `Milvus collection ${collection} exists with another schema (fields ${fields.map((f) => `${f.name}:${f.data_type}`).join(', ')})`,
    );
  }
  const stored = dimensionOf(vector);
  if (vector.data_type !== 'FloatVector' || stored !== dimensions) {
    throw new VectorIndexError(
      'dimension_mismatch',
      `Milvus collection ${collection} holds ${vector.data_type} of ${stored} dimensions; this index writes ${dimensions}`,
    );
  }
  // Searches use the collection's level: a weaker one could miss what a committed checkpoint covers.
  if (consistency_level !== 'Strong') {
    throw new VectorIndexError(
      'corrupt',
      `Milvus collection ${collection} has ${consistency_level} consistency, not Strong: drop it and it is rebuilt`,
    );
  }
}

async function collectionNames(connection: MilvusConnection, timeoutMs?: number): Promise<Set<string>> {
  // `listCollections`, not `hasCollection`: Milvus Lite 2.5.1 answers true for any name.
  const listed = await connection.call(
    'listCollections',
    (client, timeout) => client.listCollections({ timeout }),
    timeoutMs ? { timeoutMs } : {},
  );
  return new Set(listed.data.map((entry) => entry.name));
}

/**
 * Creates a collection with an explicit schema and its index, or checks the one that exists.
 * Strong consistency (searches and queries use the collection's level): a search that follows a
 * committed checkpoint must see what it covers, even when another process wrote it. AUTOINDEX lets a Milvus server pick its ANN index (Milvus Lite
 * refuses HNSW and falls back to an exact scan).
 */
async function ensureCollection(
  connection: MilvusConnection,
  existing: ReadonlySet<string>,
  name: string,
  fields: FieldType[],
  metric: 'COSINE' | 'L2',
  check: (described: Described) => void,
): Promise<boolean> {
  const created = !existing.has(name);
  if (created) {
    await connection.call(
      `createCollection ${name}`,
      (client, timeout) =>
        client.createCollection({
          collection_name: name,
          consistency_level: 'Strong',
          enable_dynamic_field: false,
          fields,
          timeout,
        }),
      { refusal: 'corrupt' },
    );
  } else {
    const described = await connection.call(`describeCollection ${name}`, (client, timeout) =>
      client.describeCollection({ collection_name: name, timeout }),
    );
    check({
      consistency_level: described.consistency_level,
      fields: described.schema.fields as unknown as DescribedField[],
    });
  }
  // Idempotent when the index exists with these parameters; refused when it has others.
  await connection.call(
    `createIndex ${name}`,
    (client, timeout) =>
      client.createIndex({
        collection_name: name,
        field_name: 'vector',
        index_type: 'AUTOINDEX',
        metric_type: metric,
        timeout,
      }),
    { refusal: 'corrupt' },
  );
  await load(connection, name);
  return created;
}

/**
 * Collections come back unloaded after a server restart. Not the SDK's `loadCollection`: it
 * sleeps 400 ms after every progress check, even a loaded collection's, and polls without a deadline.
 */
async function load(connection: MilvusConnection, name: string, deadlineMs = 60_000): Promise<void> {
  const state = await connection.call(`getLoadState ${name}`, (client, timeout) =>
    client.getLoadState({ collection_name: name, timeout }),
  );
  if (String(state.state) === 'LoadStateLoaded') return;
  await connection.call(`loadCollection ${name}`, (client, timeout) =>
    client.loadCollectionAsync({ collection_name: name, timeout }),
  );
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const progress = await connection.call(`getLoadingProgress ${name}`, (client, timeout) =>
      client.getLoadingProgress({ collection_name: name, timeout }),
    );
    if (Number(progress.progress) >= 100) return;
    if (Date.now() > deadline) {
      throw new VectorIndexError('unavailable', `Milvus did not load ${name} within ${deadlineMs} ms`);
    }
    await sleep(50);
  }
}

/**
 * Makes the chunk collection and the checkpoint collection usable. A chunk collection created here
 * is new: any checkpoint left from an earlier one of the same name (dropped behind our back) is
 * removed, so its runner starts from the beginning of the log instead of trusting vectors that are gone.
 */
export async function ensureCollections(
  connection: MilvusConnection,
  collection: string,
  dimensions: number,
): Promise<void> {
  const existing = await collectionNames(connection);
  await ensureCollection(
    connection,
    existing,
    CHECKPOINTS,
    [
      { name: 'id', data_type: 'VarChar', is_primary_key: true, max_length: KEY_MAX_LENGTH },
      { name: 'checkpoint', data_type: 'VarChar', max_length: 1_024 },
      // Milvus requires a vector field in every collection; this one is never searched.
      { name: 'vector', data_type: 'FloatVector', dim: 2 },
    ],
    'L2',
    ({ fields }) => {
      if (!fields.some((field) => field.name === 'checkpoint')) {
        throw new VectorIndexError('corrupt', `Milvus collection ${CHECKPOINTS} exists with another schema`);
      }
    },
  );
  const created = await ensureCollection(
    connection,
    existing,
    collection,
    [
      { name: 'id', data_type: 'VarChar', is_primary_key: true, max_length: KEY_MAX_LENGTH },
      { name: 'doc_id', data_type: 'VarChar', max_length: KEY_MAX_LENGTH },
      { name: 'vector', data_type: 'FloatVector', dim: dimensions },
    ],
    'COSINE',
    (described) => checkSchema(collection, dimensions, described),
  );
  if (created) await deleteCheckpoint(connection, collection);
}

export async function deleteCheckpoint(connection: MilvusConnection, collection: string): Promise<void> {
  await connection.call(`delete checkpoint of ${collection}`, (client, timeout) =>
    client.delete({ collection_name: CHECKPOINTS, filter: `id == ${literal(collection)}`, timeout }),
  );
}

export async function collectionExists(
  connection: MilvusConnection,
  name: string,
  timeoutMs?: number,
): Promise<boolean> {
  return (await collectionNames(connection, timeoutMs)).has(name);
}
