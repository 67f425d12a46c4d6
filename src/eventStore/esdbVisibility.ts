import type { RecordedEvent } from './eventStore.js';

/** What the server says about a stream whose events showed up in $all. */
export type StreamState = 'live' | 'deleted' | 'missing';

/**
 * Hides the events of deleted streams from $all reads. EventStoreDB's $all bypasses the stream
 * index: a hard-deleted (tombstoned) stream's events stay readable there until a scavenge has
 * rewritten the chunk that holds them, which may be much later or never. So every stream seen in
 * $all is checked once, and the answer cached: "deleted" for good (a tombstone is permanent),
 * "live" and "missing" (soft-deleted or expired by $maxAge/$maxCount) for `ttlMs`, which bounds
 * how long another process's deletion can go unnoticed here; this process's own deletions are
 * marked at once.
 */
export interface StreamVisibility {
  /** The events whose stream is still live, in the same order. */
  visible(events: readonly RecordedEvent[]): Promise<RecordedEvent[]>;
  isVisible(stream: string): Promise<boolean>;
  markDeleted(stream: string): void;
}

export interface StreamVisibilityOptions {
  check(stream: string): Promise<StreamState>;
  ttlMs?: number;
  /** Cached answers kept at most (oldest dropped first). */
  maxEntries?: number;
  /** Checks run at once at most. */
  concurrency?: number;
  now?: () => number;
}

export function createStreamVisibility(options: StreamVisibilityOptions): StreamVisibility {
  const ttlMs = options.ttlMs ?? 5_000;
  const maxEntries = options.maxEntries ?? 100_000;
  const concurrency = options.concurrency ?? 16;
  const now = options.now ?? Date.now;
  const known = new Map<string, { state: StreamState; at: number }>();
  const inFlight = new Map<string, Promise<StreamState>>();

  function remember(stream: string, state: StreamState): void {
    // A deletion seen meanwhile wins over a "live" answer to a check that started before it.
    if (known.get(stream)?.state === 'deleted') return;
    known.delete(stream);
    known.set(stream, { state, at: now() });
    if (known.size > maxEntries) {
      const oldest = known.keys().next();
      if (!oldest.done) known.delete(oldest.value);
    }
  }

  function cached(stream: string): StreamState | null {
    const entry = known.get(stream);
    if (!entry) return null;
    if (entry.state === 'deleted' || now() - entry.at < ttlMs) return entry.state;
    return null;
  }

  function stateOf(stream: string): Promise<StreamState> {
    const hit = cached(stream);
    if (hit) return Promise.resolve(hit);
    let pending = inFlight.get(stream);
    if (!pending) {
      pending = options
        .check(stream)
        .then((state) => {
          remember(stream, state);
          return cached(stream) ?? state;
        })
        .finally(() => inFlight.delete(stream));
      inFlight.set(stream, pending);
    }
    return pending;
  }

  return {
    async visible(events) {
      const streams = [...new Set(events.map((event) => event.streamName))];
      const unknown = streams.filter((stream) => cached(stream) === null);
      // A small pool of workers: a catch-up batch can name hundreds of streams.
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < unknown.length) {
          const stream = unknown[next]!;
          next += 1;
          await stateOf(stream);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, unknown.length) }, worker));
      const states = new Map<string, StreamState>();
      for (const stream of streams) states.set(stream, cached(stream) ?? (await stateOf(stream)));
      return events.filter((event) => states.get(event.streamName) === 'live');
    },

    async isVisible(stream) {
      return (await stateOf(stream)) === 'live';
    },

    markDeleted(stream) {
      known.delete(stream);
      known.set(stream, { state: 'deleted', at: now() });
    },
  };
}
