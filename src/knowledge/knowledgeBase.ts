import { join } from 'node:path';
import type { Caller, Clock } from '../commands/context.js';
import { metadataFor } from '../commands/context.js';
import { createDocumentCommands } from '../commands/documentCommands.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import type { ChatModel } from '../models/chatModel.js';
import type { Embedder, ModelProbe } from '../models/embedder.js';
import type { Reranker } from '../models/reranker.js';
import type { ParsePool } from '../parsing/worker/parsePool.js';
import { CHUNKS, KNOWLEDGE, type ChunkView } from '../projections/knowledgeProjection.js';
import type { ReadModels } from '../projections/readModels.js';
import type { ReadStore } from '../readStore/readStore.js';
import { awaitCheckpoint } from '../vector/awaitCheckpoint.js';
import { openEmbeddedIndex } from '../vector/embeddedIndex.js';
import { createMilvusIndex } from '../vector/milvusIndex.js';
import { parseMilvusUrl } from '../vector/milvusUrl.js';
import { collectionName, type VectorIndex } from '../vector/vectorIndex.js';
import type { JobType } from '../workers/jobs.js';
import type { Reactor } from '../workers/reactors.js';
import { createAnswerer } from './answer.js';
import { createFileBlobStore } from './blobStore.js';
import { createReadStoreEmbeddingCache } from './embeddingCache.js';
import { createIngestor } from './ingest.js';
import { uploadJob } from './ingestJobs.js';
import { keyReleaseReactor } from './keyReleaseReactor.js';
import { scrapeJob, type ScrapeLimits } from './scrapeJob.js';
import { createSearch, rerankWith, type FusionWeights } from './search.js';
import { createVectorProjector } from './vectorProjector.js';

/** Raise when what the vector projection stores changes: a new collection is built beside the old. */
const VECTOR_INDEX_VERSION = 1;

export interface KnowledgeBaseOptions {
  dataDir: string;
  maxUploadBytes: number;
  exactSearchBelow: number;
  searchWeights: FusionWeights;
  /** One Milvus index shared by every process (kept by the projector role), instead of the embedded one. */
  milvus?: { url: string; token: string | null } | null;
  /** This process as a lease holder (only one process writes a shared index). */
  owner?: string;
  eventStore: EventStore;
  readStore: ReadStore;
  readModels: ReadModels;
  waitForProjections(position: number, projections: readonly string[], timeoutMs: number): Promise<boolean>;
  parser: ParsePool;
  embedder: Embedder;
  chatModel: ChatModel;
  /** Null: search keeps the fused order. */
  reranker: Reranker | null;
  scrape: ScrapeLimits;
  clock: Clock;
  newId(): string;
  log: Logger;
}

/**
 * The knowledge base: documents as aggregates, their ingestion (a worker job), the vector index
 * kept by its projection, and hybrid search and answers over it.
 */
export function createKnowledgeBase(options: KnowledgeBaseOptions) {
  const { eventStore, readModels, embedder, log } = options;
  const documents = createDocumentCommands({ eventStore, clock: options.clock });
  const blobs = createFileBlobStore(join(options.dataDir, 'blobs'));
  const embeddings = createReadStoreEmbeddingCache(options.readStore);
  const collection = collectionName(embedder.space, VECTOR_INDEX_VERSION);
  const milvus = options.milvus ?? null;
  let index: VectorIndex | null = null;
  const vectorIndex = (): VectorIndex =>
    (index ??= milvus
      ? createMilvusIndex({
          url: milvus.url,
          token: milvus.token,
          collection,
          dimensions: embedder.dimensions,
          log: log.child({ component: 'vectors' }),
        })
      : openEmbeddedIndex({
          dir: join(options.dataDir, 'vectors'),
          collection,
          dimensions: embedder.dimensions,
          exactBelow: options.exactSearchBelow,
        }));
  const leaseName = `vectors:${collection}`;
  const owner = options.owner ?? 'embedded';

  const ingest = createIngestor({
    parser: options.parser,
    documents,
    eventStore,
    embedder,
    embeddings,
    maxInputBytes: options.maxUploadBytes,
    newId: options.newId,
    metadata: (caller: Caller) => metadataFor(caller, options.clock),
    clock: options.clock,
  });
  const { reranker } = options;
  const search = createSearch({
    embedder,
    index: vectorIndex,
    readModels,
    weights: options.searchWeights,
    rerank: reranker ? rerankWith(reranker) : null,
  });
  const answer = createAnswerer({ search, chatModel: options.chatModel });
  let projector: ReturnType<typeof createVectorProjector> | null = null;
  const vectorProjector = () =>
    (projector ??= createVectorProjector({
      eventStore,
      index: vectorIndex(),
      embedder,
      embeddings,
      log: log.child({ component: 'vectors' }),
      ...(milvus
        ? {
            lease: {
              acquire: async () => (await options.readStore.acquireLease(leaseName, owner, 15_000)) !== null,
              release: () => options.readStore.releaseLease(leaseName, owner),
            },
          }
        : {}),
      async hashesInUse(hashes, position) {
        // The chunks read model must have dropped the deleted document before it can say what is unused.
        if (!(await options.waitForProjections(position, [KNOWLEDGE], 30_000))) return null;
        const used = await readModels.find<ChunkView>(CHUNKS, {
          filter: { contentHash: { $in: [...hashes] } },
        });
        return new Set(used.map((chunk) => chunk.contentHash));
      },
    }));

  const jobs: JobType[] = [uploadJob({ ingest, blobs }), scrapeJob({ ingest, limits: options.scrape })];
  const reactors: Reactor[] = [keyReleaseReactor(eventStore)];

  return {
    documents,
    blobs,
    ingest,
    search,
    answer,
    jobs,
    reactors,
    embedder,
    chatModel: options.chatModel,
    reranker,
    collection,
    vectorIndex,
    /** Where vectors are kept: the embedded index's folder, or the Milvus URL without credentials. */
    vectorPath: milvus ? parseMilvusUrl(milvus.url).display : join(options.dataDir, 'vectors', collection),
    /**
     * The role that follows the log into the vector index: an embedded index lives in the memory of
     * the process that searches it; a Milvus index is written by one projector for every process.
     */
    vectorRole: (milvus ? 'projector' : 'api') as 'projector' | 'api',
    startVectors(): void {
      vectorProjector().start();
    },
    /** Read-your-writes: a shared index is awaited through the checkpoint its writer commits. */
    waitForVectors: (position: number, timeoutMs: number) =>
      milvus
        ? awaitCheckpoint(vectorIndex(), position, timeoutMs)
        : projector
          ? projector.waitFor(position, timeoutMs)
          : Promise.resolve(true),
    vectorStatus: () => projector?.status() ?? null,
    /** Readiness of each model and of the vector index: the models' own (cached) probes. */
    health: {
      embedder: () => withName(embedder.probe(), embedder.name),
      llm: () => withName(options.chatModel.probe(), options.chatModel.name),
      reranker: async (): Promise<ModelProbe> =>
        reranker
          ? withName(reranker.probe(), reranker.name)
          : { healthy: false, reason: 'off (RERANKER=off)' },
      async vector_store(): Promise<ModelProbe> {
        const status = projector?.status();
        const stored = await vectorIndex().health();
        return {
          healthy: stored.healthy && status?.state !== 'failed',
          reason: status?.state === 'failed' ? `vector projection failed: ${status.error}` : stored.reason,
        };
      },
    },
    async stop(): Promise<void> {
      await projector?.stop();
      await index?.close();
    },
  };
}

/** A healthy probe without a reason reports the model's name. */
async function withName(probe: Promise<ModelProbe>, name: string): Promise<ModelProbe> {
  const result = await probe;
  return { healthy: result.healthy, reason: result.reason ?? name };
}

export type KnowledgeBase = ReturnType<typeof createKnowledgeBase>;
