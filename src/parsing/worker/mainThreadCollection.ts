import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { fullCollection } from './fullCollection.js';

/**
 * After a large parse, the main thread still holds its garbage: the upload's bytes, the result the
 * worker sent back, the response's JSON. V8 collects it only when the main thread allocates again,
 * which an idle server may not do for minutes: measured, three refused 50 MB uploads left the
 * server 150 MB above idle 5 s later, and one full collection gave it all back. So once large
 * parses have ended (and their responses gone, hence the delay), one collection is run — a pause of
 * a few milliseconds on a heap that is mostly garbage, at most once per `delayMs`. Only once no parse
 * is running: under a steady stream of large documents V8 collects as it allocates anyway, and a full
 * collection every second (60–140 ms with the server's indexes in the heap) was a tenth of the main
 * thread's time while 1 MB documents were ingested.
 */
export interface MainThreadCollection {
  /** A large job ended or was refused: collect once no other has for `delayMs`. */
  afterLargeJob(): void;
  /** Cancels a pending collection (shutting down). */
  cancel(): void;
}

export function createMainThreadCollection(
  delayMs: number,
  parsing: () => boolean = () => false,
  collect: () => void = () => fullCollection()?.(),
): MainThreadCollection {
  let timer: NodeJS.Timeout | null = null;
  const arm = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      if (parsing()) arm();
      else collect();
    }, delayMs);
    timer.unref();
  };
  return {
    afterLargeJob: arm,
    cancel() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

/**
 * Whether the main thread was mostly busy since the last call (event loop utilisation over half):
 * after a large ingestion the projections apply its events for a while, and a collection before
 * they are done leaves their garbage (measured: three 4.8 MB DOCX ingested left RSS 168 MB above
 * idle 10 s later with a collection one second after the last of them).
 */
export function eventLoopBusySince(): () => boolean {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const since = performance.eventLoopUtilization(now, last);
    last = now;
    return since.utilization > 0.5;
  };
}

/**
 * A full collection at once, but only when the heap has grown by `minGrowthBytes` over the least it
 * has been seen at since the last one this ran: what a large job leaves behind. A job estimated
 * large need not leave much: each ~1 MB Markdown document (estimated ~70 MB) paid a 40 ms full
 * collection that gave back ~14 MB, 15 % of the main thread's time while such documents were
 * ingested one after another; a 4.8 MB DOCX leaves hundreds of MB, and is still collected at once.
 */
export function collectionOnGrowth(
  minGrowthBytes: number,
  collect: () => void = () => fullCollection()?.(),
  usedBytes: () => number = () => getHeapStatistics().used_heap_size,
): () => boolean {
  let least = usedBytes();
  return () => {
    const used = usedBytes();
    least = Math.min(least, used);
    if (used - least < minGrowthBytes) return false;
    collect();
    least = usedBytes();
    return true;
  };
}
