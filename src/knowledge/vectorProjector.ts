import { documentEvents, type DocumentEvent } from '../domain/document/events.js';
import type { EventStore, RecordedEvent } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import type { Embedder } from '../models/embedder.js';
import { createLogProcessor, type Opened, type ProcessorStatus } from '../logProcessing/logProcessor.js';
import type { VectorIndex, VectorRecord } from '../vector/vectorIndex.js';
import type { HeldLease } from '../logProcessing/fencedLease.js';
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
   * every batch and idle turn; null means another process holds it, and this one stands by.
   */
  lease?: () => Promise<HeldLease | null>;
}

export type VectorProjectorStatus = Omit<ProcessorStatus, 'name'>;

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

  async function open(): Promise<Opened<'lease_lost'>> {
    const held = options.lease ? await options.lease() : null;
    if (options.lease && !held) return { wait: 'standby', retryMs: 1_000 };
    let position: number;
    try {
      const checkpoint = await index.checkpoint();
      position = checkpoint === null ? 0 : Number(checkpoint);
    } catch (error) {
      await held?.release().catch(() => undefined);
      throw error;
    }
    const renewed = async (): Promise<'lease_lost' | undefined> =>
      held && !(await held.renewIfDue()) ? 'lease_lost' : undefined;
    return {
      session: {
        from: position,
        filter: { eventTypes: documentEvents.types },
        async batch(batch) {
          if ((await renewed()) === 'lease_lost') return 'lease_lost';
          if (batch.events.length > 0) await applyBatch(batch.events);
          if (batch.checkpoint !== position) await index.commit(String(batch.checkpoint));
          position = batch.checkpoint;
          return undefined;
        },
        idle: renewed,
        close: async () => held?.release(),
      },
    };
  }

  const processor = createLogProcessor<'lease_lost'>({
    name: `vectors:${index.collection}`,
    eventStore,
    log,
    open,
    describeEnd: () => 'vector projection lease lost; standing by',
    maxBatch: options.batchSize ?? 256,
    idleMs: 1_000,
    retry: { baseMs: 250, maxMs: 30_000 },
  });

  return {
    start(): void {
      processor.start();
    },
    async stop(): Promise<void> {
      // Also cuts short an embedding call of the batch in hand.
      controller.abort();
      await processor.stop();
    },
    status(): VectorProjectorStatus {
      const { name: _name, ...status } = processor.status();
      return status;
    },
    /** True once the index holds everything up to `position`; false after `timeoutMs`. */
    waitFor: (position: number, timeoutMs: number): Promise<boolean> =>
      processor.waitFor(position, timeoutMs),
  };
}

export type VectorProjector = ReturnType<typeof createVectorProjector>;
