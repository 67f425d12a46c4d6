/** An HNSW graph over string ids (usearch keys are integers: each id gets one for its lifetime). */
export interface Hnsw {
  upsert(id: string, vector: Float32Array): void;
  remove(id: string): void;
  /** The `k` nearest by cosine, best first, with their cosine similarity. */
  search(query: Float32Array, k: number): Array<{ id: string; score: number }>;
}

/** Loaded on first use: a native module that small installations never need. */
export async function createHnsw(dimensions: number): Promise<Hnsw> {
  const usearch = await import('usearch');
  const index = new usearch.Index({
    dimensions,
    metric: usearch.MetricKind.Cos,
    quantization: usearch.ScalarKind.F32,
    connectivity: 16,
    expansion_add: 128,
    expansion_search: 128,
    multi: false,
  });
  const keys = new Map<string, bigint>();
  const ids = new Map<bigint, string>();
  let next = 1n;
  return {
    upsert(id, vector) {
      const existing = keys.get(id);
      if (existing !== undefined) index.remove(existing);
      const key = existing ?? next++;
      keys.set(id, key);
      ids.set(key, id);
      index.add(key, vector);
    },
    remove(id) {
      const key = keys.get(id);
      if (key === undefined) return;
      index.remove(key);
      keys.delete(id);
      ids.delete(key);
    },
    search(query, k) {
      const found = index.search(query, k, 0);
      const hits: Array<{ id: string; score: number }> = [];
      found.keys.forEach((key, at) => {
        const id = ids.get(key);
        // usearch's cosine distance is 1 - cosine similarity.
        if (id !== undefined) hits.push({ id, score: 1 - found.distances[at]! });
      });
      return hits;
    },
  };
}
