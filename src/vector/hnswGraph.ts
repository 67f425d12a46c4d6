import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Usearch from 'usearch';
import { startWorker, workerEntry } from '../workerThreads.js';
import { fileDigest } from './fileDigest.js';

const BUILD_WORKER_URL = workerEntry('hnswBuildWorker', import.meta.url);

/** Graph parameters: usearch's defaults for connectivity, a wider beam for better recall. */
const GRAPH_SETTINGS = { connectivity: 16, expansionAdd: 128, expansionSearch: 256 } as const;

/** What a graph is built from: vectors in one array, the key of each being its position in `ids`. */
export interface GraphSnapshot {
  ids: string[];
  vectors: Float32Array;
}

/** What the build worker is sent. */
export interface GraphBuildRequest {
  vectors: Float32Array;
  dimensions: number;
  file: string;
  threads: number;
}

/** What a saved graph file must be before it is mapped. */
export interface GraphFile {
  size: number;
  sha256: string;
}

/** A read-only HNSW graph over one snapshot, memory-mapped from its file. */
export interface Graph {
  /** Ids of (about) the `k` nearest by cosine, best first. */
  search(query: Float32Array, k: number): string[];
}

export function usearchIndex(dimensions: number): Usearch.Index {
  const usearch = createRequire(import.meta.url)('usearch') as typeof Usearch;
  return new usearch.Index({
    dimensions,
    metric: usearch.MetricKind.Cos,
    // Half precision: half the memory and file of f32; exact scores come from rescoring anyway.
    quantization: usearch.ScalarKind.F16,
    connectivity: GRAPH_SETTINGS.connectivity,
    expansion_add: GRAPH_SETTINGS.expansionAdd,
    expansion_search: GRAPH_SETTINGS.expansionSearch,
    multi: false,
  });
}

/**
 * Builds a graph of `snapshot` in a worker thread and saves it to `file` (written beside it, then
 * renamed): inserting 100k vectors takes most of a minute of CPU, which the event loop never sees.
 */
export function buildGraph(
  snapshot: GraphSnapshot,
  dimensions: number,
  file: string,
  threads: number,
): { done: Promise<GraphFile>; cancel(): Promise<void> } {
  const request: GraphBuildRequest = { vectors: snapshot.vectors, dimensions, file, threads };
  const worker = startWorker(BUILD_WORKER_URL, {
    workerData: request,
    transferList: [snapshot.vectors.buffer as ArrayBuffer],
  });
  const done = new Promise<GraphFile>((resolve, reject) => {
    worker.once('message', (message: { saved?: GraphFile; error?: string }) =>
      message.saved ? resolve(message.saved) : reject(new Error(message.error ?? 'graph build failed')),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`graph build stopped (exit code ${code})`)));
  });
  return {
    done,
    async cancel() {
      await worker.terminate();
    },
  };
}

/**
 * Opens a saved graph without reading it into memory (usearch `view` maps the file). The file is
 * checked against its size and digest first: usearch trusts a mapped file, and one cut short or
 * damaged brings the process down (SIGBUS) instead of raising an error.
 */
export function viewGraph(
  file: string,
  expected: GraphFile,
  dimensions: number,
  ids: readonly string[],
): Graph {
  if (statSync(file).size !== expected.size || fileDigest(file) !== expected.sha256) {
    throw new Error(`${file} is not the graph that was saved (size or digest differs)`);
  }
  const index = usearchIndex(dimensions);
  index.view(file);
  return {
    search(query, k) {
      const wanted = Math.min(k, ids.length);
      if (wanted === 0) return [];
      const { keys } = index.search(query, wanted, 1);
      return Array.from(keys, (key) => ids[Number(key)]).filter((id): id is string => id !== undefined);
    },
  };
}
