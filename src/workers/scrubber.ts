import type { EventStore } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import type { ReadStore } from '../readStore/readStore.js';

export interface ScrubberOptions {
  eventStore: Pick<EventStore, 'scrub'>;
  readStore: Pick<ReadStore, 'scrub'>;
  /** Resolves once the read models have applied the events up to `position` (or gave up waiting). */
  waitForReadModels(position: number): Promise<boolean>;
  /** Deletions within this window share one scrub (default 2 s). */
  delayMs?: number;
  log: Logger;
}

/**
 * Makes deleted content unrecoverable from the stores' files, once for a batch of deletions: a
 * scrub (a WAL checkpoint and truncation for SQLite) costs far more than a deletion, so requests
 * arriving within `delayMs` share one. It first waits for the read models to have applied the
 * deletion records, so the documents they removed are scrubbed too.
 */
export function createScrubber(options: ScrubberOptions) {
  const delayMs = options.delayMs ?? 2_000;
  let requested = 0;
  let done = 0;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const idleWaiters: Array<() => void> = [];

  async function scrub(): Promise<void> {
    const target = requested;
    await options.waitForReadModels(target);
    await options.eventStore.scrub();
    await options.readStore.scrub();
    done = Math.max(done, target);
    options.log.debug({ position: target }, 'deleted content scrubbed from the stores');
  }

  function schedule(): void {
    if (timer || running) return;
    timer = setTimeout(() => {
      timer = null;
      running = scrub()
        .catch((error: unknown) =>
          options.log.warn({ err: error }, 'scrubbing deleted content failed; will retry'),
        )
        .finally(() => {
          running = null;
          if (requested > done) schedule();
          else idleWaiters.splice(0).forEach((wake) => wake());
        });
    }, delayMs);
    timer.unref();
  }

  return {
    /** A deletion recorded at `position` needs scrubbing. */
    request(position: number): void {
      requested = Math.max(requested, position);
      schedule();
    },
    /** Resolves once every deletion requested so far has been scrubbed. */
    idle(): Promise<void> {
      if (requested <= done && !running && !timer) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    /** Scrubs what is pending now (at shutdown). */
    async flush(): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
      if (requested > done) await scrub().catch(() => undefined);
      idleWaiters.splice(0).forEach((wake) => wake());
    },
  };
}

export type Scrubber = ReturnType<typeof createScrubber>;
