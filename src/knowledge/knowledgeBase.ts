import type { Caller, Clock } from '../commands/context.js';
import { metadataFor } from '../commands/context.js';
import { documentAggregate } from '../commands/aggregates.js';
import { createCommandService } from '../commands/commandService.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import { documentTasksReactor } from './documentTasksReactor.js';
import type { Role } from '../roles.js';
import type { ChatModel } from '../models/chatModel.js';
import type { Embedder, ModelProbe } from '../models/embedder.js';
import { localEmbedderFor } from '../models/localEmbedder.js';
import type { Reranker } from '../models/reranker.js';
import type { ParsePool } from '../parsing/worker/parsePool.js';
import { CHUNKS, KNOWLEDGE, type ChunkView } from '../projections/knowledgeProjection.js';
import type { ReadModels } from '../projections/readModels.js';
import type { ReadStore } from '../readStore/readStore.js';
import { collectionName, type VectorIndex } from '../vector/vectorIndex.js';
import { taskAttemptLease, type JobType } from '../workers/jobs.js';
import { TASKS, type TaskView } from '../projections/tasksProjection.js';
import type { Reactor } from '../workers/reactors.js';
import { holdLease } from '../logProcessing/fencedLease.js';
import { createAnswerer } from './answer.js';
import type { BlobStore } from '../blobStore/blobStore.js';
import { createReadStoreEmbeddingCache } from './embeddingCache.js';
import { createIngestor } from './ingest.js';
import { uploadJob } from './ingestJobs.js';
import { bulkUploadJob } from './bulkUploadJob.js';
import type { ZipLimits } from './zipUpload.js';
import { keyReleaseReactor } from './keyReleaseReactor.js';
import { blobReleaseReactor } from './blobReleaseReactor.js';
import { scrapeJob, type ScrapeLimits } from './scrapeJob.js';
import { createSearch, rerankWith, type FusionWeights } from './search.js';
import { createVectorCollections, VECTOR_INDEX_VERSION } from './vectorCollections.js';
import { createVectorProjector } from './vectorProjector.js';
import { openVectorStore } from './vectorStore.js';

export interface KnowledgeBaseOptions {
  dataDir: string;
  maxUploadBytes: number;
  exactSearchBelow: number;
  /** From this many vectors an embedded collection is scanned in worker threads; 0: never. */
  scanThreadFrom?: number;
  searchWeights: FusionWeights;
  /** One Milvus index shared by every process (kept by the projector role), instead of the embedded one. */
  milvus?: { url: string; token: string | null } | null;
  /** This process as a lease holder (only one process writes a shared index). */
  owner?: string;
  eventStore: EventStore;
  readStore: ReadStore;
  readModels: ReadModels;
  /** Where uploaded bytes wait for their ingestion job. */
  blobs: BlobStore;
  /** A task whose attempt lease lapsed this long ago has no worker left (TASK_CLAIM_TIMEOUT_MS). */
  claimTimeoutMs: number;
  /** Longest the vector half of a search may take before the search goes on lexical only. */
  engineTimeoutMs?: number;
  waitForProjections(position: number, projections: readonly string[], timeoutMs: number): Promise<boolean>;
  parser: ParsePool;
  embedder: Embedder;
  chatModel: ChatModel;
  /** Null: search keeps the fused order. */
  reranker: Reranker | null;
  scrape: ScrapeLimits;
  /** Limits of a ZIP upload's archive, which its task's job reads. */
  zipLimits: ZipLimits;
  clock: Clock;
  newId(): string;
  log: Logger;
  /** Purges a finished task's record (the tasks module's `PurgeTask`). */
  purgeTask: (taskId: string, caller: Caller) => Promise<unknown>;
  /** Told the stages each ingestion went through, with their durations in ms (the metrics). */
  observeIngestion?(timings: Partial<Record<string, number>>): void;
}

/**
 * The knowledge base: documents as aggregates, their ingestion (a worker job), the vector index
 * kept by its projection, and hybrid search and answers over it.
 */
export function createKnowledgeBase(options: KnowledgeBaseOptions) {
  const { eventStore, readModels, embedder, log } = options;
  const documents = createCommandService(documentAggregate, { eventStore, clock: options.clock });
  const { blobs } = options;
  const embeddings = createReadStoreEmbeddingCache(options.readStore);
  const milvus = options.milvus ?? null;
  const vectorLog = log.child({ component: 'vectors' });
  const store = openVectorStore({
    dataDir: options.dataDir,
    exactSearchBelow: options.exactSearchBelow,
    scanThreadFrom: options.scanThreadFrom,
    milvus,
    readStore: options.readStore,
    log: vectorLog,
  });
  const owner = options.owner ?? 'embedded';
  const collections = createVectorCollections({
    records: store.records,
    open: store.open,
    drop: store.drop,
    embedder,
    embedderFor: localEmbedderFor,
    base: collectionName(embedder.space, VECTOR_INDEX_VERSION),
    headPosition: () => eventStore.headPosition(),
    projector: (index, withEmbedder) =>
      createVectorProjector({
        eventStore,
        index,
        embedder: withEmbedder,
        embeddings,
        log: vectorLog,
        // A shared index is written by one process at a time: the lease names the collection.
        ...(milvus ? { lease: leaseOn(options.readStore, `vectors:${index.collection}`, owner) } : {}),
        async hashesInUse(hashes, position) {
          // The chunks read model must have dropped the deleted document before it can say what is unused.
          if (!(await options.waitForProjections(position, [KNOWLEDGE], 30_000))) return null;
          const used = await readModels.find<ChunkView>(CHUNKS, {
            filter: { contentHash: { $in: [...hashes] } },
          });
          return new Set(used.map((chunk) => chunk.contentHash));
        },
      }),
    shared: store.shared,
    // Other processes read the active record every second: a retired collection outlives that.
    dropGraceMs: milvus ? 5_000 : 0,
    pollMs: 1_000,
    log: vectorLog,
  });

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
    ...(options.observeIngestion ? { observeStages: options.observeIngestion } : {}),
    async taskAlive(taskId) {
      const task = await readModels.get<TaskView>(TASKS, taskId);
      if (!task) return null;
      if (task.status === 'pending') return true;
      if (task.status !== 'running') return false;
      // Running: alive while an attempt holds its lease, and for a claim timeout after it lapsed,
      // the time the bus takes to deliver the job again to a worker that resumes it.
      const lease = await options.readStore.readLease(taskAttemptLease(taskId));
      return lease !== null && lease.expiresAt + options.claimTimeoutMs > options.clock().getTime();
    },
  });
  const { reranker } = options;
  const search = createSearch({
    dense: () => collections.dense(),
    ...(options.engineTimeoutMs ? { denseTimeoutMs: options.engineTimeoutMs } : {}),
    readModels,
    weights: options.searchWeights,
    rerank: reranker ? rerankWith(reranker) : null,
  });
  const answer = createAnswerer({ search, chatModel: options.chatModel });
  const jobs: JobType[] = [
    uploadJob({ ingest, blobs }),
    bulkUploadJob({ ingest, blobs, zipLimits: options.zipLimits }),
    scrapeJob({ ingest, limits: options.scrape }),
  ];
  const reactors: Reactor[] = [
    keyReleaseReactor(eventStore),
    blobReleaseReactor({ eventStore, blobs }),
    documentTasksReactor({ purgeTask: options.purgeTask, log: log.child({ component: 'document_tasks' }) }),
  ];

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
    /** The active vector collection (the one search reads once complete). */
    get collection(): string {
      return collections.active();
    },
    /** The active collection's index. */
    vectorIndex: (): VectorIndex => collections.activeIndex(),
    collections,
    /** Where vectors are kept: the active collection's folder, or the Milvus URL without credentials. */
    get vectorPath(): string {
      return store.path(collections.active());
    },
    /**
     * The roles that follow the log into the vector index. An embedded index lives in the memory of
     * each process that searches it: API processes (`/search`, `/query`) and workers (the knowledge
     * tools they run, whose searches would otherwise miss the vector half). A Milvus index is written
     * by one projector for every process.
     */
    vectorRoles: (milvus ? ['projector'] : ['api', 'worker']) as readonly Role[],
    startVectors: (): Promise<void> => collections.start(),
    /** Read-your-writes: the collection search reads holds everything up to `position`. */
    waitForVectors: (position: number, timeoutMs: number) => collections.waitFor(position, timeoutMs),
    vectorStatus: () => collections.servingProjector()?.status() ?? null,
    /** Readiness of each model and of the vector index: the models' own (cached) probes. */
    health: {
      embedder: () => withName(embedder.probe(), embedder.name),
      llm: () => withName(options.chatModel.probe(), options.chatModel.name),
      reranker: async (): Promise<ModelProbe> =>
        reranker
          ? withName(reranker.probe(), reranker.name)
          : { healthy: false, reason: 'off (RERANKER=off)' },
      vector_store: (): Promise<ModelProbe> => collections.health(),
    },
    async stop(): Promise<void> {
      await collections.stop();
      store.close();
    },
  };
}

/** A lease of the read store as the vector projector takes it (renewed with its batches). */
function leaseOn(store: ReadStore, name: string, owner: string) {
  return () => holdLease(store, name, owner, 15_000);
}

/** A healthy probe without a reason reports the model's name. */
async function withName(probe: Promise<ModelProbe>, name: string): Promise<ModelProbe> {
  const result = await probe;
  return { healthy: result.healthy, reason: result.reason ?? name };
}

export type KnowledgeBase = ReturnType<typeof createKnowledgeBase>;
