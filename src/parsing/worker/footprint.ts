import { getHeapSpaceStatistics, getHeapStatistics, type HeapInfo, type HeapSpaceInfo } from 'node:v8';

/**
 * A thread's heap and the external memory (buffers) it holds, the young generation left out; the
 * process's RSS is shared by all threads. The young generation grows to its fixed maximum (32 MB)
 * under any stream of large documents and stays there, empty after a collection: counted, it was
 * about half of the growth that had a worker replaced — and its code compiled again — every ~13
 * documents of 1 MB, while what they left alive stayed flat (57–69 MB used after each collection).
 */
export function heapFootprint(
  heap: Pick<HeapInfo, 'total_heap_size' | 'external_memory'> = getHeapStatistics(),
  spaces: readonly Pick<HeapSpaceInfo, 'space_name' | 'space_size'>[] = getHeapSpaceStatistics(),
): number {
  const young = spaces.find((space) => space.space_name === 'new_space');
  return heap.total_heap_size - (young?.space_size ?? 0) + heap.external_memory;
}

export interface FootprintTracker {
  /** The footprint a job left, collecting the garbage first when there is much of it. */
  afterJob(): number;
}

/**
 * What the pool judges recycling by, and memory given back at once instead of whenever the next
 * job allocates. A full collection costs 20–40 ms on a heap with the parsers loaded (most of a small
 * document's time when it ran after every job) and drops the thread's optimised code, so it runs
 * only once the footprint is `collectAboveBytes` above the last collected one. Below that, nothing
 * large was left and the rest is garbage: the last collected figure is reported. (The figure
 * measured then, garbage included, was reported before, and with the creep of committed heap pages
 * it crossed the pool's threshold on its own.)
 */
export function createFootprintTracker(options: {
  collectAboveBytes: number;
  measure: () => number;
  collect: () => void;
}): FootprintTracker {
  let collected = 0;
  return {
    afterJob() {
      const now = options.measure();
      if (collected > 0 && now - collected < options.collectAboveBytes) return collected;
      options.collect();
      collected = options.measure();
      return collected;
    },
  };
}
