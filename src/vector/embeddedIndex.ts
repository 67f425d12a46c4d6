import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VectorHit, VectorIndex, VectorRecord } from './vectorIndex.js';
import { VectorIndexError } from './vectorIndex.js';
import { openLogWriter, readLog, type LogEntry } from './vectorLog.js';
import { createHnsw, type Hnsw } from './usearchHnsw.js';

export interface EmbeddedIndexOptions {
  /** Folder of all collections (`DATA_DIR/vectors`). */
  dir: string;
  collection: string;
  dimensions: number;
  /** Below this many vectors search is exact (brute force); above, HNSW (usearch). */
  exactBelow: number;
}

interface Stored {
  docId: string;
  vector: Float32Array;
}

/** `dimensions` is absent in sidecars written before it was recorded. */
type Sidecar = { checkpoint: string | null; bytes: number; dimensions?: number };

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += a[i]! * b[i]!;
  return sum;
}

/**
 * The embedded vector index: every vector in memory (384 floats ≈ 1.5 kB each), an append-only log
 * under `dir/<collection>/` replayed at open, and a checkpoint file written after the log is synced
 * (so the checkpoint never claims writes the log lost; writes after it are replayed by the runner).
 * Search is exact below `exactBelow` vectors — HNSW's approximation buys nothing on small sets —
 * and goes through a usearch HNSW graph above it, built when first needed.
 */
export function openEmbeddedIndex(options: EmbeddedIndexOptions): VectorIndex {
  const { dimensions, collection } = options;
  const folder = join(options.dir, collection);
  mkdirSync(folder, { recursive: true });
  const logPath = join(folder, 'vectors.log');
  const sidecarPath = join(folder, 'checkpoint.json');
  const sidecar: Sidecar = existsSync(sidecarPath)
    ? (JSON.parse(readFileSync(sidecarPath, 'utf8')) as Sidecar)
    : { checkpoint: null, bytes: 0 };
  // The log holds raw floats: read with another width, it would turn into other vectors.
  if (sidecar.dimensions !== undefined && sidecar.dimensions !== dimensions) {
    throw new VectorIndexError(
      'dimension_mismatch',
      `vector index ${collection} holds ${sidecar.dimensions} dimensions, not ${dimensions}`,
    );
  }

  const records = new Map<string, Stored>();
  const apply = (entry: LogEntry): void => {
    if (entry.op === 'upsert') records.set(entry.id, { docId: entry.docId, vector: entry.vector });
    else records.delete(entry.id);
  };
  const replayed = readLog(logPath, dimensions, sidecar.bytes);
  for (const entry of replayed.entries) apply(entry);
  const log = openLogWriter(logPath, dimensions, replayed.bytes);
  let hnsw: Hnsw | null = null;
  let closed = false;

  const check = (): void => {
    if (closed) throw new VectorIndexError('closed', `vector index ${collection} is closed`);
  };
  const write = (entries: LogEntry[]): void => {
    log.append(entries);
    for (const entry of entries) {
      apply(entry);
      if (hnsw) {
        if (entry.op === 'upsert') hnsw.upsert(entry.id, entry.vector);
        else hnsw.remove(entry.id);
      }
    }
  };

  function exact(query: Float32Array, k: number, docIds: ReadonlySet<string> | null): VectorHit[] {
    const hits: VectorHit[] = [];
    for (const [id, stored] of records) {
      if (docIds && !docIds.has(stored.docId)) continue;
      hits.push({ id, docId: stored.docId, score: dot(query, stored.vector) });
    }
    return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, k);
  }

  async function graph(): Promise<Hnsw> {
    if (!hnsw) {
      const built = await createHnsw(dimensions);
      for (const [id, stored] of records) built.upsert(id, stored.vector);
      hnsw = built;
    }
    return hnsw;
  }

  return {
    engine: 'embedded',
    collection,
    dimensions,
    async upsert(batch: readonly VectorRecord[]) {
      check();
      for (const record of batch) {
        if (record.vector.length !== dimensions) {
          throw new VectorIndexError(
            'dimension_mismatch',
            `vector ${record.id} has ${record.vector.length} dimensions; ${collection} holds ${dimensions}`,
          );
        }
      }
      write(
        batch.map((record) => ({ op: 'upsert', id: record.id, docId: record.docId, vector: record.vector })),
      );
    },
    async delete(ids) {
      check();
      write(ids.filter((id) => records.has(id)).map((id) => ({ op: 'delete', id })));
    },
    async deleteDocument(docId) {
      check();
      const ids = [...records].filter(([, stored]) => stored.docId === docId).map(([id]) => id);
      write(ids.map((id) => ({ op: 'delete', id })));
    },
    async search(query, { k, docIds }) {
      check();
      if (query.length !== dimensions) {
        throw new VectorIndexError(
          'dimension_mismatch',
          `query has ${query.length} dimensions, not ${dimensions}`,
        );
      }
      if (k <= 0) return [];
      const only = docIds ? new Set(docIds) : null;
      if (only || records.size < options.exactBelow) return exact(query, k, only);
      const found = (await graph()).search(query, k);
      return found.flatMap(({ id, score }) => {
        const stored = records.get(id);
        return stored ? [{ id, docId: stored.docId, score }] : [];
      });
    },
    async count() {
      return records.size;
    },
    async commit(checkpoint) {
      check();
      log.sync();
      // A log mostly made of overwritten and deleted records is rewritten with the live ones.
      const live = records.size * (dimensions * 4 + 64);
      if (log.size > 4 * live + 1_048_576) {
        log.rewrite(
          [...records].map(([id, stored]) => ({
            op: 'upsert' as const,
            id,
            docId: stored.docId,
            vector: stored.vector,
          })),
        );
      }
      const temporary = `${sidecarPath}.partial`;
      writeFileSync(
        temporary,
        JSON.stringify({ checkpoint, bytes: log.size, dimensions } satisfies Sidecar),
        {
          flush: true,
        },
      );
      renameSync(temporary, sidecarPath);
      sidecar.checkpoint = checkpoint;
      sidecar.bytes = log.size;
    },
    async checkpoint() {
      return sidecar.checkpoint;
    },
    async drop() {
      if (!closed) log.close();
      closed = true;
      records.clear();
      hnsw = null;
      rmSync(folder, { recursive: true, force: true });
    },
    async health() {
      return closed
        ? { healthy: false, reason: 'closed' }
        : { healthy: true, reason: `${records.size} vectors (${collection}, embedded)` };
    },
    async close() {
      if (closed) return;
      closed = true;
      log.close();
    },
  };
}
