import type { Embedder } from '../models/embedder.js';
import type { EmbeddingCache } from './embeddingCache.js';

export interface TextToEmbed {
  /** SHA-256 of `text`: the cache key. */
  hash: string;
  text: string;
}

/**
 * The passage vectors of `items`, from the cache where it has them and from the embedder (in its
 * batch size) for the rest, which are then cached. Each distinct hash is embedded once.
 */
export async function embedWithCache(
  embedder: Embedder,
  cache: EmbeddingCache,
  items: readonly TextToEmbed[],
  signal?: AbortSignal,
  /** Told after each batch the embedder computed: how many of the texts it had to embed are done. */
  onBatch?: (done: number, total: number) => Promise<void>,
): Promise<Map<string, Float32Array>> {
  const unique = new Map(items.map((item) => [item.hash, item.text]));
  const vectors = await cache.get(embedder.space, [...unique.keys()]);
  const missing = [...unique].filter(([hash]) => !vectors.has(hash));
  const batch = Math.max(1, embedder.maxBatch);
  for (let start = 0; start < missing.length; start += batch) {
    const slice = missing.slice(start, start + batch);
    const computed = await embedder.embed(
      slice.map(([, text]) => text),
      { kind: 'passage', ...(signal ? { signal } : {}) },
    );
    const entries = slice.map(([hash], index) => ({ hash, vector: computed[index]! }));
    await cache.put(embedder.space, entries, { durable: embedder.worthStoring !== false });
    for (const { hash, vector } of entries) vectors.set(hash, vector);
    await onBatch?.(start + slice.length, missing.length);
  }
  return vectors;
}
