import type { Logger } from '../log.js';
import { createMilvusConnection, type MilvusConnection } from './milvusIndexConnection.js';
import {
  CHECKPOINTS,
  collectionExists,
  decodeKey,
  deleteCheckpoint,
  encodeKey,
  ensureCollections,
  literal,
  literalList,
} from './milvusIndexSchema.js';
import { parseMilvusUrl } from './milvusUrl.js';
import type { VectorHit, VectorIndex, VectorRecord } from './vectorIndex.js';
import { VectorIndexError } from './vectorIndex.js';

export interface MilvusIndexOptions {
  /** `http://host:port`, `https://…` or `host:port` (MILVUS_URL). */
  url: string;
  /** API key or `user:password` (MILVUS_TOKEN); credentials in the URL serve otherwise. */
  token?: string | null;
  collection: string;
  dimensions: number;
  log: Logger;
  /** Deadline of each call to Milvus (default 10 s). */
  timeoutMs?: number;
  /**
   * Least time between two flushes of the collection on `commit` (default 60 s). Flushing seals
   * growing segments so the server indexes them; it is not what makes writes durable (see `commit`).
   */
  flushIntervalMs?: number;
}

/**
 * Rows per upsert request. Measured on Milvus Lite with 384 floats a row: 1,000 rows per request
 * were the fastest (1,700 rows/s), 4,000 half as fast, 5,000 seventeen times slower, and a
 * 4,000-row request on busy cores outlived a 10 s deadline. So 1,000 rows of 384 floats, fewer
 * when vectors are wider.
 */
const MAX_FLOATS_PER_BATCH = 1_000 * 384;
const MAX_ROWS_PER_BATCH = 1_000;
/** A write's deadline grows with its rows: encoding them is part of the call's time. */
const DEADLINE_MS_PER_ROW = 10;
/** Ids per delete filter (`id in [...]`): bounded so an expression stays small. */
const MAX_IDS_PER_DELETE = 1_000;
/** Milvus refuses a larger top-k. */
const MAX_TOP_K = 16_384;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

/**
 * The VectorIndex on Milvus: one collection per embedding model and index version (`id` varchar
 * primary key = chunk id, `doc_id` varchar, `vector` float vector, COSINE), and one row per
 * collection in `archivist_checkpoints` holding its committed checkpoint — so every process that
 * searches can tell how far the index is, not only the one that writes it.
 *
 * The collections are created or checked, and loaded, on first use and again after any failure
 * (the server may have restarted or the collection been dropped), so a process outlives a Milvus
 * outage: calls fail fast with `unavailable` meanwhile.
 */
export function createMilvusIndex(options: MilvusIndexOptions): VectorIndex {
  const { collection, dimensions, log } = options;
  const endpoint = parseMilvusUrl(options.url, options.token ?? null);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const connection: MilvusConnection = createMilvusConnection({
    endpoint,
    timeoutMs,
    log,
  });
  const flushIntervalMs = options.flushIntervalMs ?? 60_000;
  const rowsPerBatch = Math.max(
    1,
    Math.min(MAX_ROWS_PER_BATCH, Math.floor(MAX_FLOATS_PER_BATCH / dimensions)),
  );
  let ready: Promise<void> | null = null;
  let closed = false;
  let unflushed = 0;
  let lastFlush = Date.now();

  const check = (): void => {
    if (closed) throw new VectorIndexError('closed', `vector index ${collection} is closed`);
  };
  const checkDimensions = (vector: Float32Array, what: string): void => {
    if (vector.length !== dimensions) {
      throw new VectorIndexError(
        'dimension_mismatch',
        `${what} has ${vector.length} dimensions; ${collection} holds ${dimensions}`,
      );
    }
  };

  /** Runs `operation` once the collections are usable; a failure makes the next call check them again. */
  async function withCollection<T>(operation: () => Promise<T>): Promise<T> {
    check();
    ready ??= ensureCollections(connection, collection, dimensions);
    try {
      await ready;
      return await operation();
    } catch (error) {
      ready = null;
      throw error;
    }
  }

  /** The checkpoint this index last read or committed; undefined before either. */
  let known: string | null | undefined;
  const readCheckpoint = async (): Promise<string | null> => {
    const found = await connection.call(`read checkpoint of ${collection}`, (client, timeout) =>
      client.query({
        collection_name: CHECKPOINTS,
        filter: `id == ${literal(collection)}`,
        output_fields: ['checkpoint'],
        timeout,
      }),
    );
    const row = found.data[0] as { checkpoint?: unknown } | undefined;
    return typeof row?.checkpoint === 'string' ? row.checkpoint : null;
  };

  const deleteWhere = (what: string, filter: string) =>
    connection.call(what, (client, timeout) =>
      client.delete({ collection_name: collection, filter, timeout }),
    );

  return {
    engine: 'milvus',
    collection,
    dimensions,
    async upsert(records: readonly VectorRecord[]) {
      check();
      for (const record of records) checkDimensions(record.vector, `vector ${record.id}`);
      if (records.length === 0) return;
      // Milvus keeps both rows of one id in a single request: the last one wins here, as in a replay.
      const latest = new Map(records.map((record) => [record.id, record]));
      const rows = [...latest.values()].map((record) => ({
        id: encodeKey(record.id),
        doc_id: encodeKey(record.docId),
        vector: Array.from(record.vector),
      }));
      await withCollection(async () => {
        for (const batch of chunks(rows, rowsPerBatch)) {
          await connection.call(
            `upsert into ${collection}`,
            (client, timeout) => client.upsert({ collection_name: collection, data: batch, timeout }),
            { timeoutMs: timeoutMs + batch.length * DEADLINE_MS_PER_ROW },
          );
          unflushed += batch.length;
        }
      });
    },
    async delete(ids) {
      check();
      if (ids.length === 0) return;
      await withCollection(async () => {
        for (const batch of chunks([...new Set(ids)], MAX_IDS_PER_DELETE)) {
          await deleteWhere(`delete from ${collection}`, `id in ${literalList(batch)}`);
          unflushed += batch.length;
        }
      });
    },
    async deleteDocument(docId) {
      await withCollection(async () => {
        await deleteWhere(`delete document from ${collection}`, `doc_id == ${literal(docId)}`);
        unflushed += 1;
      });
    },
    async search(query, { k, docIds }) {
      check();
      checkDimensions(query, 'query');
      if (k <= 0 || docIds?.length === 0) return [];
      const found = await withCollection(() =>
        connection.call(`search ${collection}`, (client, timeout) =>
          client.search({
            collection_name: collection,
            anns_field: 'vector',
            data: Array.from(query),
            limit: Math.min(k, MAX_TOP_K),
            metric_type: 'COSINE',
            output_fields: ['id', 'doc_id'],
            ...(docIds ? { filter: `doc_id in ${literalList(docIds)}` } : {}),
            timeout,
          }),
        ),
      );
      return (found.results as Array<Record<string, unknown>>).map((hit): VectorHit => ({
        id: decodeKey(String(hit['id'])),
        docId: decodeKey(String(hit['doc_id'])),
        score: Number(hit['score']),
      }));
    },
    async count() {
      const counted = await withCollection(() =>
        connection.call(`count ${collection}`, (client, timeout) =>
          client.count({ collection_name: collection, timeout }),
        ),
      );
      return Number(counted.data);
    },
    /**
     * Records `checkpoint` once every earlier write is acknowledged. Milvus acknowledges a write
     * once it is in its write-ahead log (Milvus Lite: in its database file; measured: acknowledged
     * upserts and deletes survive kill -9 of the server without a flush), so the checkpoint never
     * claims a write that could be lost. Flushing is left to at most one per `flushIntervalMs`: a
     * Milvus server allows 0.1 flush/s per collection by default (quotaAndLimits.flushRate) and each
     * one seals small segments.
     *
     * A checkpoint that is no longer the one this index last read or committed means another process
     * wrote it (two runners) or the collection was dropped and created again: refused (`corrupt`),
     * so the runner starts again from the checkpoint there is instead of writing past it.
     */
    async commit(checkpoint) {
      await withCollection(async () => {
        if (known !== undefined) {
          const current = await readCheckpoint();
          if (current !== known) {
            const left = known;
            known = undefined;
            throw new VectorIndexError(
              'corrupt',
              `the checkpoint of ${collection} is ${current} where this index left ${left}: another process writes it, or the collection was created again`,
            );
          }
        }
        await connection.call(`commit checkpoint of ${collection}`, (client, timeout) =>
          client.upsert({
            collection_name: CHECKPOINTS,
            data: [{ id: encodeKey(collection), checkpoint, vector: [1, 0] }],
            timeout,
          }),
        );
        known = checkpoint;
        if (unflushed > 0 && Date.now() - lastFlush >= flushIntervalMs) {
          const rows = unflushed;
          unflushed = 0;
          lastFlush = Date.now();
          await connection
            .call(`flush ${collection}`, (client, timeout) =>
              client.flush({ collection_names: [collection], timeout }),
            )
            .catch((error: unknown) =>
              log.warn({ err: error, collection, rows }, 'Milvus did not flush (the writes are kept)'),
            );
        }
      });
    },
    async checkpoint() {
      known = await withCollection(readCheckpoint);
      return known;
    },
    async drop() {
      check();
      if (await collectionExists(connection, collection)) {
        await connection.call(`dropCollection ${collection}`, (client, timeout) =>
          client.dropCollection({ collection_name: collection, timeout }),
        );
      }
      if (await collectionExists(connection, CHECKPOINTS)) await deleteCheckpoint(connection, collection);
      closed = true;
      await connection.close();
    },
    async health() {
      if (closed) return { healthy: false, reason: 'closed' };
      try {
        // Milvus Lite answers `checkHealth` with an empty object: listing collections is the probe.
        const exists = await collectionExists(connection, collection, 2_000);
        return {
          healthy: true,
          reason: `${collection} at ${connection.display} (milvus${exists ? '' : ', not created yet'})`,
        };
      } catch (error) {
        return { healthy: false, reason: (error as Error).message };
      }
    },
    async close() {
      closed = true;
      await connection.close();
    },
  };
}
