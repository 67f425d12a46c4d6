import { setTimeout as sleep } from 'node:timers/promises';
import { documentEvents, type DocumentEvent } from '../domain/document/events.js';
import type { AllBatch, EventStore, RecordedEvent } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import type { Embedder } from '../models/embedder.js';
import { followBatches } from '../projections/followBatches.js';
import type { VectorIndex, VectorRecord } from '../vector/vectorIndex.js';
import type { EmbeddingCache } from './embeddingCache.js';
import { embedWithCache } from './embedChunks.js';

export const VECTORS_PROJECTION = 'vectors';

export interface VectorProjectorOptions {
  eventStore: EventStore;
  index: VectorIndex;
  embedder: Embedder;
  embeddings: EmbeddingCache;
  /** Content hashes still used by a stored chunk (the embedding cache keeps those). */
  hashesInUse(hashes: readonly string[], position: number): Promise<Set<string> | null>;
  log: Logger;
  batchSize?: number;
  /**
   * For an index shared by several processes (Milvus): taken before following and renewed with
   * every batch and idle turn; false means another process holds it, and this one stands by.
   */
  lease?: { acquire(): Promise<boolean>; release(): Promise<void> };
}

export interface VectorProjectorStatus {
  state: 'starting' | 'live' | 'standby' | 'failed' | 'stopped';
  position: number;
  error: string | null;
}

/**
 * Keeps the vector index in step with the log: `ChunkStored` upserts the chunk's vector (from the
 * embedding cache, so a rebuild or replay never calls the embedder for text it has seen),
 * `ChunkRemoved` and `DocumentDeleted` delete. A projection, not a reactor: it starts from the
 * index's own checkpoint (0 for a new collection — a new embedding model builds a new collection
 * from the whole log), and every write is idempotent by chunk id.
 */
export function createVectorProjector(options: VectorProjectorOptions) {
  const { eventStore, index, log } = options;
  const controller = new AbortController();
  const waiters = new Set<() => void>();
  const status: VectorProjectorStatus = { state: 'starting', position: 0, error: null };
  let running: Promise<void> | null = null;

  /** A pause that `stop()` cuts short. */
  const pause = (ms: number): Promise<void> =>
    sleep(ms, undefined, { signal: controller.signal }).catch(() => undefined);
  const wakeWaiters = (): void => {
    for (const wake of [...waiters]) wake();
  };

  async function applyBatch(events: readonly RecordedEvent[]): Promise<void> {
    const decoded = events.map((recorded) => ({
      recorded,
      event: documentEvents.decode(recorded) as DocumentEvent,
    }));
    const stored = decoded.flatMap(({ event }) => (event.type === 'ChunkStored' ? [event.data] : []));
    const vectors = await embedWithCache(
      options.embedder,
      options.embeddings,
      stored.map((chunk) => ({ hash: chunk.contentHash, text: chunk.text })),
      controller.signal,
    );
    let upserts: VectorRecord[] = [];
    const flush = async (): Promise<void> => {
      if (upserts.length > 0) await index.upsert(upserts);
      upserts = [];
    };
    // In log order: a chunk stored, removed and stored again ends stored.
    for (const { recorded, event } of decoded) {
      switch (event.type) {
        case 'ChunkStored':
          upserts.push({
            id: event.data.chunkId,
            docId: event.data.docId,
            vector: vectors.get(event.data.contentHash)!,
          });
          break;
        case 'ChunkRemoved':
          await flush();
          await index.delete([event.data.chunkId]);
          break;
        case 'DocumentDeleted': {
          await flush();
          await index.deleteDocument(event.data.docId);
          const inUse = await options.hashesInUse(event.data.chunkHashes, recorded.position);
          if (inUse)
            await options.embeddings.delete(event.data.chunkHashes.filter((hash) => !inUse.has(hash)));
          break;
        }
        default:
          break;
      }
    }
    await flush();
  }

  async function follow(): Promise<void> {
    const signal = controller.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (options.lease && !(await options.lease.acquire())) {
          status.state = 'standby';
          await pause(1_000);
          continue;
        }
        const checkpoint = await index.checkpoint();
        status.position = checkpoint === null ? 0 : Number(checkpoint);
        status.state = 'live';
        status.error = null;
        wakeWaiters();
        const renewed = async (): Promise<'lost' | undefined> =>
          options.lease && !(await options.lease.acquire()) ? 'lost' : undefined;
        const outcome = await followBatches<AllBatch, 'lost'>(
          eventStore.subscribeToAll({
            fromPosition: status.position,
            filter: { eventTypes: documentEvents.types },
            maxBatch: options.batchSize ?? 256,
            signal,
          }),
          {
            idleMs: 1_000,
            async batch(batch) {
              if ((await renewed()) === 'lost') return 'lost';
              if (batch.events.length > 0) await applyBatch(batch.events);
              if (batch.checkpoint !== status.position) await index.commit(String(batch.checkpoint));
              status.position = batch.checkpoint;
              failures = 0;
              wakeWaiters();
              return undefined;
            },
            idle: renewed,
          },
        );
        if (outcome === 'lost')
          log.warn({ collection: index.collection }, 'vector projection lease lost; standing by');
      } catch (error) {
        if (signal.aborted) break;
        failures += 1;
        status.state = 'failed';
        status.error = (error as Error).message;
        log.error({ err: error, collection: index.collection }, 'vector projection failed; retrying');
        wakeWaiters();
        await pause(Math.min(30_000, 250 * 2 ** failures));
      }
    }
    await options.lease?.release().catch(() => undefined);
    status.state = 'stopped';
    wakeWaiters();
  }

  return {
    start(): void {
      running ??= follow();
    },
    async stop(): Promise<void> {
      controller.abort();
      await running;
    },
    status(): VectorProjectorStatus {
      return { ...status };
    },
    /** True once the index holds everything up to `position`; false after `timeoutMs`. */
    async waitFor(position: number, timeoutMs: number): Promise<boolean> {
      const deadline = Date.now() + timeoutMs;
      while (status.position < position) {
        const left = deadline - Date.now();
        if (left <= 0 || controller.signal.aborted) return false;
        await new Promise<void>((resolve) => {
          const wake = (): void => {
            waiters.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, Math.min(left, 50));
          waiters.add(wake);
        });
      }
      return true;
    },
  };
}

export type VectorProjector = ReturnType<typeof createVectorProjector>;
