import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { VectorIndex, VectorRecord } from './vectorIndex.js';
import { VectorIndexError } from './vectorIndex.js';
import { createGraphKeeper, type LogPoint } from './graphKeeper.js';
import { openLogWriter, replayLog, type LogEntry } from './vectorLog.js';
import type { ScanMirror, ScanThread } from './scanThread.js';
import { VectorSlab } from './vectorSlab.js';

export interface EmbeddedIndexOptions {
  /** Folder of all collections (`DATA_DIR/vectors`). */
  dir: string;
  collection: string;
  dimensions: number;
  /** Below this many vectors every search scans them all; from it on, an HNSW graph (usearch) once built. */
  exactBelow: number;
  /** Threads a graph build inserts with: 1 (the default) leaves a core to requests. */
  graphThreads?: number;
  /** From `from` vectors on, scans run in these threads (see ScanThread) instead of the caller's. */
  scanThread?: { thread: ScanThread; from: number } | null;
}

/** A commit becomes durable within this time (see `makeDurable`). */
const DURABLE_EVERY_MS = 1_000;

/** `dimensions` is absent in sidecars written before it was recorded, `generation` before graphs were saved. */
type Sidecar = { checkpoint: string | null; bytes: number; dimensions?: number; generation?: number };

export interface EmbeddedVectorIndex extends VectorIndex {
  /** Resolves when a collection above `exactBelow` is searched through a graph holding every write. */
  settleGraph(): Promise<void>;
}

/**
 * The embedded vector index: every vector in memory in a slab (floats for exact scores, int8 copies
 * for a SIMD scan), an append-only log under `dir/<collection>/` replayed at open, and a checkpoint
 * file written after the log is synced (so the checkpoint never claims writes the log lost; writes
 * after it are replayed by the runner). Below `exactBelow` vectors every search scans the slab
 * (1.5 ms at 100k vectors of 384 dimensions; in the scan threads, when given, from their size
 * threshold on); above it, an HNSW graph is built in the background and searched once ready, the
 * scan answering meanwhile.
 */
export function openEmbeddedIndex(options: EmbeddedIndexOptions): EmbeddedVectorIndex {
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

  const slab = new VectorSlab(dimensions);
  const apply = (entry: LogEntry): void => {
    if (entry.op === 'upsert') slab.set(entry.id, entry.docId, entry.vector);
    else slab.delete(entry.id);
  };
  let generation = sidecar.generation ?? 0;
  const graphs = createGraphKeeper({
    folder,
    dimensions,
    slab,
    buildAbove: options.exactBelow,
    threads: options.graphThreads ?? 1,
  });
  // The ids written after a saved graph's snapshot, collected only when there is such a graph.
  const savedAt = graphs.savedSnapshotEnd(generation);
  const writtenAfter = new Set<string>();
  const replayedBytes = replayLog(logPath, dimensions, sidecar.bytes, (entry, end) => {
    apply(entry);
    if (savedAt !== null && end > savedAt) writtenAfter.add(entry.id);
  });
  const log = openLogWriter(logPath, dimensions, replayedBytes);
  const here = (): LogPoint => ({ generation, bytes: log.size });
  graphs.restore(here(), writtenAfter);
  graphs.maybeBuild(here());
  let closed = false;
  let closedLog = false;
  let mirror: ScanMirror | null = null;
  /** The scan threads' copy of this collection, when they serve it. */
  const scanThreads = (): ScanMirror | null => {
    const scan = options.scanThread;
    if (!scan || scan.from <= 0 || slab.size < scan.from || scan.thread.failed) return null;
    return (mirror ??= scan.thread.attach(dimensions));
  };
  // The threads take their copy now rather than on the first search (~2 s at 1M vectors).
  setImmediate(() => {
    const threads = closed ? null : scanThreads();
    if (threads) slab.nearestInThread(threads, new Float32Array(dimensions), 1).catch(() => undefined);
  });

  const check = (): void => {
    if (closed) throw new VectorIndexError('closed', `vector index ${collection} is closed`);
  };
  const write = (entries: LogEntry[]): void => {
    log.append(entries);
    for (const entry of entries) {
      apply(entry);
      graphs.written(entry.id);
    }
    graphs.maybeBuild(here());
  };

  /** The latest commit: durable once `makeDurable` has run after it. */
  let committed: { checkpoint: string; bytes: number } | null = null;
  let durableTimer: NodeJS.Timeout | null = null;
  let lastDurableAt = 0;
  /** A background `makeDurable` under way, and whether a commit came in meanwhile. */
  let durableRun: Promise<void> | null = null;
  let committedDuringRun = false;
  let durableError: string | null = null;

  // One writer per collection folder (see vectorFolder.ts), so one name serves: a crash's leftover
  // is overwritten by the next commit instead of staying beside the sidecar.
  const temporarySidecar = `${sidecarPath}.partial`;
  const sidecarOf = (checkpoint: string, bytes: number): Sidecar => ({
    checkpoint,
    bytes,
    dimensions,
    generation,
  });
  const compactionDue = (): boolean => log.size > 4 * slab.size * (dimensions * 4 + 64) + 1_048_576;

  /**
   * Syncs the log and records the latest commit's checkpoint beside it, on this thread: at close,
   * and when the log is due for compaction. Commits come after every projection batch, and their
   * two fsyncs on the main thread were the largest item of a profile of small-file ingestion; they
   * are grouped (at most one durable commit a second) and otherwise made in the background (see
   * `makeDurableSoon`). Vectors are derived data: a crash loses at most that second, replayed from
   * the checkpoint before it.
   */
  function makeDurable(): void {
    if (durableTimer) clearTimeout(durableTimer);
    durableTimer = null;
    if (!committed || closedLog) return;
    lastDurableAt = Date.now();
    log.sync();
    let bytes = committed.bytes;
    // A log mostly made of overwritten and deleted records is rewritten with the live ones (writes
    // after the checkpoint included: replaying from it converges, every write being idempotent).
    if (compactionDue()) {
      log.rewrite([...slab.entries()].map((entry) => ({ op: 'upsert' as const, ...entry })));
      bytes = log.size;
      // Offsets of the old log mean nothing in the new one: a saved graph no longer matches it.
      generation += 1;
    }
    writeFileSync(temporarySidecar, JSON.stringify(sidecarOf(committed.checkpoint, bytes)), { flush: true });
    renameSync(temporarySidecar, sidecarPath);
    sidecar.checkpoint = committed.checkpoint;
    sidecar.bytes = bytes;
  }

  /**
   * `makeDurable` without blocking the thread: the fsyncs run on libuv's pool (each took up to tens
   * of milliseconds on a busy disk, and every request waited behind them). One at a time; a commit
   * that arrives meanwhile is made durable after it. A failure is reported by health (and retried by
   * the next commit), not thrown.
   */
  function makeDurableSoon(): void {
    if (durableTimer) clearTimeout(durableTimer);
    durableTimer = null;
    if (!committed || closedLog) return;
    if (durableRun) {
      committedDuringRun = true;
      return;
    }
    if (compactionDue()) {
      try {
        makeDurable();
        durableError = null;
      } catch (error) {
        durableError = (error as Error).message;
      }
      return;
    }
    const target = committed;
    lastDurableAt = Date.now();
    durableRun = (async () => {
      await log.syncInBackground();
      const saved = sidecarOf(target.checkpoint, target.bytes);
      await writeFile(temporarySidecar, JSON.stringify(saved), { flush: true });
      await rename(temporarySidecar, sidecarPath);
      sidecar.checkpoint = saved.checkpoint;
      sidecar.bytes = saved.bytes;
    })()
      .then(
        () => {
          durableError = null;
        },
        (error: unknown) => {
          durableError = (error as Error).message;
        },
      )
      .finally(() => {
        durableRun = null;
        if (committedDuringRun && !closedLog) {
          committedDuringRun = false;
          scheduleDurable();
        }
      });
  }

  function scheduleDurable(): void {
    const due = lastDurableAt + DURABLE_EVERY_MS - Date.now();
    if (due <= 0) makeDurableSoon();
    else durableTimer ??= setTimeout(makeDurableSoon, due).unref();
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
      write(ids.filter((id) => slab.has(id)).map((id) => ({ op: 'delete', id })));
    },
    async deleteDocument(docId) {
      check();
      write(slab.idsOf(docId).map((id) => ({ op: 'delete', id })));
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
      if (docIds)
        return slab.score(
          query,
          docIds.flatMap((docId) => slab.idsOf(docId)),
          k,
        );
      const fromGraph = graphs.search(query, k);
      if (fromGraph) return fromGraph;
      const threads = scanThreads();
      return threads ? slab.nearestInThread(threads, query, k) : slab.nearest(query, k);
    },
    async count() {
      return slab.size;
    },
    settleGraph: () => graphs.settle(here),
    async commit(checkpoint) {
      check();
      committed = { checkpoint, bytes: log.size };
      scheduleDurable();
    },
    async checkpoint() {
      return committed?.checkpoint ?? sidecar.checkpoint;
    },
    async drop() {
      if (durableTimer) clearTimeout(durableTimer);
      await durableRun;
      if (!closedLog) log.close();
      closed = true;
      closedLog = true;
      await graphs.close();
      await mirror?.detach();
      slab.clear();
      rmSync(folder, { recursive: true, force: true });
    },
    async health() {
      if (closed) return { healthy: false, reason: 'closed' };
      if (durableError) return { healthy: false, reason: `could not save the checkpoint: ${durableError}` };
      return {
        healthy: true,
        reason: `${slab.size} vectors (${collection}, embedded, ${graphs.describe()})`,
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      await durableRun;
      makeDurable();
      closedLog = true;
      await graphs.close();
      await mirror?.detach();
      log.close();
      // A closed index answers nothing: its vectors (1.9 GB at 1M) go now, not with the last reference.
      slab.clear();
    },
  };
}
