import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildGraph, viewGraph, type Graph, type GraphFile } from './hnswGraph.js';
import type { VectorHit } from './vectorIndex.js';
import type { VectorSlab } from './vectorSlab.js';

/** Where the log stood when a graph's snapshot was taken: `generation` changes when the log is rewritten. */
export interface LogPoint {
  generation: number;
  bytes: number;
}

/**
 * Saved beside the graph: its file, the snapshot's ids (a key is a position here) and its log
 * point. Each graph has a file of its own, so a crash between saving a graph and its manifest
 * leaves the old pair intact.
 */
interface Manifest extends LogPoint {
  file: string;
  saved: GraphFile;
  dimensions: number;
  ids: string[];
}

/** Candidates taken from the graph per result wanted, rescored exactly from the slab. */
const OVERSAMPLE = 4;
const MIN_CANDIDATES = 40;

export interface GraphKeeperOptions {
  folder: string;
  dimensions: number;
  slab: VectorSlab;
  /** Collections this large or larger are searched through a graph once one is built. */
  buildAbove: number;
  /** Threads the build worker inserts with (one leaves the other core to requests). */
  threads?: number;
  now?: () => number;
}

/**
 * An HNSW graph kept beside the slab as an immutable snapshot: built in a worker thread, saved and
 * memory-mapped, reused after a restart. Vectors written after its snapshot are "dirty": left out
 * of its answers and scored exactly instead. When too many are dirty the slab is scanned and a new
 * snapshot is built — never more than half of the time, so ingestion keeps a core.
 */
export function createGraphKeeper(options: GraphKeeperOptions) {
  const { folder, dimensions, slab } = options;
  const now = options.now ?? Date.now;
  const manifestFile = join(folder, 'graph.json');
  /** Removes every graph file but `keep` (and builds cut short). */
  const removeGraphsBut = (keep: string | null): void => {
    for (const name of readdirSync(folder)) {
      if (name.startsWith('graph-') && name !== keep) rmSync(join(folder, name), { force: true });
    }
  };
  let graph: Graph | null = null;
  /** The manifest read by `savedSnapshotEnd`, until `restore` takes it up. */
  let saved: Manifest | null = null;
  let dirty = new Set<string>();
  let building: { since: Set<string>; done: Promise<void>; cancel(): Promise<void> } | null = null;
  let nextBuildAt = 0;
  let lastError: string | null = null;
  let closed = false;

  const staleAbove = (): number => Math.max(1_000, Math.floor(slab.size / 100));
  const large = (): boolean => slab.size > 0 && slab.size >= options.buildAbove;
  const usable = (): boolean => graph !== null && dirty.size <= staleAbove() && large();

  function build(point: LogPoint): Promise<void> {
    const snapshot = slab.snapshot();
    const since = new Set<string>();
    const started = now();
    const file = `graph-${point.generation}-${point.bytes}.usearch`;
    const job = buildGraph(snapshot, dimensions, join(folder, file), options.threads ?? 1);
    const done = job.done
      .then((saved) => {
        if (closed) return;
        const manifest: Manifest = { ...point, file, saved, dimensions, ids: snapshot.ids };
        // Named by process, as the checkpoint's is (processes sharing DATA_DIR).
        const temporary = `${manifestFile}.${process.pid}.partial`;
        writeFileSync(temporary, JSON.stringify(manifest), { flush: true });
        renameSync(temporary, manifestFile);
        graph = viewGraph(join(folder, file), saved, dimensions, snapshot.ids);
        dirty = since;
        // A mapped file stays readable after its name is removed, until the old graph is collected.
        removeGraphsBut(file);
        lastError = null;
      })
      .catch((error: Error) => {
        if (!closed) lastError = `graph build failed: ${error.message}`;
      })
      .finally(() => {
        building = null;
        // The next build waits as long as this one took: graphs take at most half of a core's time.
        nextBuildAt = now() + Math.max(1_000, now() - started);
      });
    building = { since, done, cancel: job.cancel };
    return done;
  }

  return {
    /**
     * Where the saved graph that could serve this log generation ends in the log, or null when there
     * is none: asked before the log is replayed, so that only the ids written after it are collected.
     */
    savedSnapshotEnd(generation: number): number | null {
      saved = readManifest(manifestFile);
      const usable =
        saved !== null &&
        saved.dimensions === dimensions &&
        saved.generation === generation &&
        existsSync(join(folder, saved.file));
      if (!usable) saved = null;
      return saved?.bytes ?? null;
    },
    /**
     * Takes up the saved graph found by `savedSnapshotEnd` if the log still holds its snapshot;
     * `writtenAfter` are the ids the log wrote after it (they become dirty). Any other graph file goes.
     */
    restore(point: LogPoint, writtenAfter: Iterable<string>): void {
      const manifest = saved !== null && saved.bytes <= point.bytes ? saved : null;
      saved = null;
      removeGraphsBut(manifest?.file ?? null);
      if (!manifest) return;
      try {
        graph = viewGraph(join(folder, manifest.file), manifest.saved, dimensions, manifest.ids);
        dirty = new Set(writtenAfter);
      } catch (error) {
        // A damaged graph file: the next build replaces it.
        lastError = `saved graph unreadable: ${(error as Error).message}`;
        graph = null;
      }
    },
    /** Every write of an id goes through here. */
    written(id: string): void {
      if (graph) dirty.add(id);
      building?.since.add(id);
    },
    /** Starts a build in the background when the collection is large and has no current graph. */
    maybeBuild(point: LogPoint): void {
      if (closed || building || !large() || now() < nextBuildAt) return;
      if (graph && dirty.size <= staleAbove()) return;
      void build(point);
    },
    /**
     * Waits until a large collection's graph holds every write (building one now if needed, however
     * recent the last build): for tests and benchmarks that measure the graph itself.
     */
    async settle(point: () => LogPoint): Promise<void> {
      while (!closed) {
        if (building) await building.done;
        else if (large() && (graph === null || dirty.size > 0)) {
          await build(point());
          // A build that failed would fail again: say why instead of trying for ever.
          if (lastError) throw new Error(lastError);
        } else return;
      }
    },
    /** The nearest `k` through the graph, exactly scored; null when there is no current graph. */
    search(query: Float32Array, k: number): VectorHit[] | null {
      if (!usable()) return null;
      const candidates = graph!.search(query, Math.max(MIN_CANDIDATES, k * OVERSAMPLE));
      return slab.score(query, [...candidates.filter((id) => !dirty.has(id)), ...dirty], k);
    },
    /** True when searches go through a graph (false: a scan). */
    get active(): boolean {
      return usable();
    },
    get building(): boolean {
      return building !== null;
    },
    describe(): string {
      const state = usable() ? 'HNSW graph' : building ? 'scan; graph building' : 'scan';
      return lastError ? `${state}; ${lastError}` : state;
    },
    async close(): Promise<void> {
      closed = true;
      await building?.cancel();
      graph = null;
    },
  };
}

/** The saved manifest; null when there is none or it cannot be read (the graph is then rebuilt). */
function readManifest(file: string): Manifest | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  } catch {
    return null;
  }
}
