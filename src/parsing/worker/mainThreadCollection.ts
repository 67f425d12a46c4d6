import { fullCollection } from './fullCollection.js';

/**
 * After a large parse, the main thread still holds its garbage: the upload's bytes, the result the
 * worker sent back, the response's JSON. V8 collects it only when the main thread allocates again,
 * which an idle server may not do for minutes: measured, three refused 50 MB uploads left the
 * server 150 MB above idle 5 s later, and one full collection gave it all back. So once large
 * parses have ended (and their responses gone, hence the delay), one collection is run — a pause of
 * a few milliseconds on a heap that is mostly garbage, at most once per `delayMs`.
 */
export interface MainThreadCollection {
  /** A large job ended or was refused: collect once no other has for `delayMs`. */
  afterLargeJob(): void;
  /** Cancels a pending collection (shutting down). */
  cancel(): void;
}

export function createMainThreadCollection(delayMs: number): MainThreadCollection {
  let timer: NodeJS.Timeout | null = null;
  return {
    afterLargeJob() {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        fullCollection()?.();
      }, delayMs);
      timer.unref();
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
