import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { purgeRecordStream } from '../commands/aggregate.js';
import type { Caller, Clock } from '../commands/context.js';
import type { DocumentCommands } from '../commands/aggregates.js';
import { release, reserve } from '../commands/reservation.js';
import type { ChunkInput } from '../domain/document/commands.js';
import { DEFAULT_COLLECTION } from '../domain/collection/events.js';
import { documentStream } from '../domain/document/events.js';
import type { Reservation, SourceKind } from '../domain/document/events.js';
import type { Metadata } from '../domain/shared/index.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { Embedder } from '../models/embedder.js';
import { DEFAULT_PARSE_LIMITS } from '../parsing/context.js';
import type { ParseJob, SectionsResult } from '../parsing/job.js';
import { PoolBusyError, type ParsePool } from '../parsing/worker/parsePool.js';
import type { EmbeddingCache } from './embeddingCache.js';
import { embedWithCache } from './embedChunks.js';
import { contentHashOf } from '../text/contentHash.js';

/** What ingesting one file or page came to: the spec's ingestion result, in camelCase. */
export interface IngestionOutcome {
  success: boolean;
  docId: string | null;
  title: string;
  chunksAdded: number;
  chunksUpdated: number;
  chunksSkipped: number;
  error: string | null;
  isDuplicate: boolean;
  duplicateType: 'filepath' | 'url' | 'content_hash' | null;
  existingDocId: string | null;
  existingDocTitle: string | null;
  duplicateMessage: string | null;
  /** Log position of the document's events (0 when nothing was written). */
  position: number;
  /** Milliseconds each stage took, for the stages it reached. */
  timings: StageTimings;
}

/**
 * The stages of an ingestion, in the order they run, each with the share of the whole that is done
 * when it ends: what a task's progress says. Receiving the bytes is the job's; detecting, parsing
 * (per page for paged formats), cleaning and chunking happen in a parse worker; claiming finds
 * duplicates; embedding computes the vectors (the only place ingestion calls the embedder); indexing
 * records the document, whose events the projections and the vector index then apply.
 */
export const INGESTION_STAGES = {
  receive: 0.02,
  detect: 0.05,
  parse: 0.6,
  clean: 0.65,
  chunk: 0.7,
  claim: 0.72,
  embed: 0.92,
  index: 0.98,
} as const;
export type IngestionStage = keyof typeof INGESTION_STAGES;
export type StageTimings = Partial<Record<IngestionStage, number>>;

/** Where an ingestion is: the stage under way or just ended, the share done, and a detail. */
export interface StageReport {
  stage: IngestionStage;
  progress: number;
  detail: string;
}

export interface IngestInput {
  fileName: string;
  bytes: Uint8Array;
  /** Upload path (`<section>/<file name>`) or the page's normalised URL. */
  source: string;
  sourceKind: SourceKind;
  section: string;
  /** The collection it goes to (`default` when absent): duplicates are found within it. */
  collection?: string;
  skipDuplicates: boolean;
  caller: Caller;
  signal: AbortSignal;
  /** The task ingesting it: named as the cause of its claims, so others can tell whether it lives. */
  taskId?: string;
  /**
   * The id the document gets when it is new, derived from its task, so that an attempt resuming the
   * task finds the claims its predecessor made as its own instead of waiting for them. Random when absent.
   */
  docId?: string;
  /** Says what the ingestion waits for (another ingestion of the same source or content). */
  onWait?(message: string): Promise<void>;
  /** Told as stages end and pages are parsed (it may throw to stop the ingestion: a cancelled task). */
  onProgress?(report: StageReport): Promise<void>;
}

export interface IngestDeps {
  parser: Pick<ParsePool, 'run'>;
  documents: DocumentCommands;
  eventStore: EventStore;
  embedder: Embedder;
  embeddings: EmbeddingCache;
  maxInputBytes: number;
  newId(): string;
  metadata(caller: Caller): Metadata;
  clock: Clock;
  /**
   * Whether the ingestion task that made a claim may still finish: true while it waits or runs with
   * a live worker, false once it has ended (without making the document: that is checked first) or
   * its worker is gone; null when the task is unknown, and the claim is judged by its age.
   */
  taskAlive?(taskId: string): Promise<boolean | null>;
  /** Age after which a claim of an unknown holder is taken over (default 15 min). */
  abandonedClaimMs?: number;
  /** Waits between looks at a claim held by a running ingestion (tests shorten it). */
  claimPollMs?: number;
  /** Told the stages each ingestion went through and how long each took (the metrics). */
  observeStages?(timings: StageTimings): void;
}

export const SOURCE_RESERVATION = 'doc_source';
/** How an ingestion task names itself as the cause of its claims and documents. */
const TASK_CAUSE = 'task:';
export const CONTENT_RESERVATION = 'doc_content';
/** Chunk sizes of stored documents: the spec's defaults for chunking. */
const INGEST_CHUNKING = { mode: 'auto', targetWords: 500, maxWords: 1500 } as const;

/** How long an ingestion waits before asking a busy parser again. */
const BUSY_RETRY_MS = 2_000;

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * A uniqueness key within a collection: duplicates are found inside the collection a document goes
 * to, so that an upload elsewhere learns nothing of a private collection (not even that it holds the
 * same file). The default collection keeps the keys it always had.
 */
function scoped(collection: string | undefined, key: string): string {
  return collection === undefined || collection === DEFAULT_COLLECTION ? key : `${collection}\n${key}`;
}

export function failedOutcome(title: string, error: string): IngestionOutcome {
  return { ...emptyOutcome(title), success: false, error };
}

/** A success that stored nothing yet: the base every outcome is built on. */
export function emptyOutcome(title: string): IngestionOutcome {
  return {
    success: true,
    docId: null,
    title,
    chunksAdded: 0,
    chunksUpdated: 0,
    chunksSkipped: 0,
    error: null,
    isDuplicate: false,
    duplicateType: null,
    existingDocId: null,
    existingDocTitle: null,
    duplicateMessage: null,
    position: 0,
    timings: {},
  };
}

function duplicateOutcome(
  title: string,
  type: 'filepath' | 'url' | 'content_hash',
  existing: { docId: string; title: string },
): IngestionOutcome {
  const what = type === 'content_hash' ? 'the same content' : type === 'url' ? 'this URL' : 'this file path';
  return {
    ...emptyOutcome(title),
    isDuplicate: true,
    duplicateType: type,
    existingDocId: existing.docId,
    existingDocTitle: existing.title,
    duplicateMessage: `Skipped: document ${existing.docId} ("${existing.title}") already holds ${what}. Send skip_duplicates=false to ingest it again.`,
  };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    };
    const stop = (): void => {
      done();
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** The parse job of an ingestion: parse, clean and chunk as stored documents are. */
export function ingestionParseJob(fileName: string, bytes: Uint8Array, maxInputBytes: number): ParseJob {
  return {
    kind: 'sections',
    fileName,
    bytes,
    options: { enableOcr: true, enableImageDescription: false, tableMode: 'accurate' },
    cleaning: { removeUrls: false, normalizeArabic: false },
    limits: { ...DEFAULT_PARSE_LIMITS, maxInputBytes },
    chunking: { ...INGEST_CHUNKING },
    includeFullText: false,
    forStorage: true,
  };
}

/** The chunks of a parse that are stored (those with text), with their content hashes. */
export function chunkInputs(result: SectionsResult): ChunkInput[] {
  const documentLanguage = result.document.metadata.language ?? 'unknown';
  return result.chunks
    .filter((chunk) => chunk.content.trim().length > 0)
    .map((chunk) => ({
      text: chunk.content,
      contentHash: sha256(chunk.content),
      sectionPath: chunk.sectionPath,
      heading: chunk.heading,
      headingLevel: chunk.headingLevel,
      pageStart: chunk.pageStart,
      pageEnd: chunk.pageEnd,
      wordCount: chunk.wordCount,
      language: chunk.language || documentLanguage,
    }));
}

/**
 * Ingests one file or page: parse and chunk it (worker threads), find duplicates by source and by
 * content through reservations (so two concurrent ingestions of the same thing make one document),
 * embed the chunks (cached by content hash), and record the document. Every failure of the input
 * becomes `success: false` with the reason, and nothing is stored.
 */
export function createIngestor(deps: IngestDeps) {
  /**
   * Parses and chunks the input in a parse worker. Its memory reservation is held past the parse
   * (`release` gives it back): chunking, embedding and recording a document take memory of the same
   * order as parsing it, so the next large document waits until this one is stored, not just parsed.
   */
  async function parse(
    input: IngestInput,
    stages: ReturnType<typeof stageReporter>,
  ): Promise<{ parsed: SectionsResult; release(): void }> {
    const job = ingestionParseJob(input.fileName, input.bytes, deps.maxInputBytes);
    // A busy parser is a reason to wait, not to record the document as failed: ingestion runs in
    // the background, and its concurrency is bounded by the job type's.
    for (;;) {
      const run = deps.parser.run(job, input.signal, { holdReservation: true });
      try {
        let result: SectionsResult | null = null;
        for await (const event of run) {
          if (event.type === 'result') result = event.result as SectionsResult;
          else if (event.type === 'stage') await stages.ended(event.stage, event.ms);
          else if (event.type === 'pageParsed') {
            const detail = `page ${event.page} of ${event.totalPages}`;
            await stages.within('parse', event.page / event.totalPages, detail);
          }
        }
        if (!result) throw new Error('the parse job ended without a result');
        return { parsed: result, release: () => run.releaseReservation() };
      } catch (error) {
        run.releaseReservation();
        if (!(error instanceof PoolBusyError)) throw error;
        await sleep(BUSY_RETRY_MS, undefined, { signal: input.signal });
      }
    }
  }

  const abandonedClaimMs = deps.abandonedClaimMs ?? 15 * 60_000;
  const claimPollMs = deps.claimPollMs ?? 100;

  /** Whether the document holding a claim was deleted (its release may still be on its way). */
  async function wasDeleted(docId: string): Promise<boolean> {
    return (await deps.eventStore.streamInfo(purgeRecordStream(documentStream(docId)))).version > 0;
  }

  /**
   * Claims `key` for `docId`, or answers the live document holding it. A claim whose document is
   * still being ingested (by a concurrent upload of the same thing) is waited for: it ends as that
   * document, or is released when that ingestion fails. A claim left by a deleted document, or by an
   * ingestion that died long ago, is released and taken.
   */
  /** Whether a claim's holder, whose document is not stored, can be given up on. */
  async function abandoned(claim: { holder: string; since: string; cause: string | null }): Promise<boolean> {
    if (await wasDeleted(claim.holder)) return true;
    const taskId = claim.cause?.startsWith(TASK_CAUSE) ? claim.cause.slice(TASK_CAUSE.length) : null;
    const alive = taskId ? ((await deps.taskAlive?.(taskId)) ?? null) : null;
    if (alive !== null) return !alive;
    return !(deps.clock().getTime() - Date.parse(claim.since) < abandonedClaimMs);
  }

  /** The claim holder's document, when it is stored. */
  async function storedDocument(docId: string): Promise<{ docId: string; title: string } | null> {
    const { state } = await deps.documents.read(docId);
    return state.status === 'active' ? { docId, title: state.title } : null;
  }

  async function claim(
    kind: string,
    key: string,
    docId: string,
    input: Pick<IngestInput, 'signal' | 'onWait'>,
    metadata: Metadata,
  ): Promise<{ claimed: true } | { claimed: false; holder: { docId: string; title: string } }> {
    let said = '';
    for (let takeovers = 0; takeovers < 3;) {
      const outcome = await reserve(deps.eventStore, kind, key, docId, metadata);
      if (outcome.reserved || outcome.holder === docId) return { claimed: true };
      const stored = await storedDocument(outcome.holder);
      if (stored) return { claimed: false, holder: stored };
      if (await abandoned(outcome)) {
        // Its task has ended, or its worker is gone: but a task that ended may have stored the
        // document after the first look (its document comes before its task's end, and before its
        // lease is given back), so look again before taking the claim over.
        const storedSince = await storedDocument(outcome.holder);
        if (storedSince) return { claimed: false, holder: storedSince };
        await release(deps.eventStore, kind, key, metadata, outcome.holder);
        takeovers += 1;
        continue;
      }
      const what = kind === CONTENT_RESERVATION ? 'the same content' : 'the same source';
      const message = `waiting for ingestion ${outcome.holder} of ${what} to finish`;
      if (message !== said) await input.onWait?.(message);
      said = message;
      await abortableSleep(claimPollMs, input.signal);
    }
    throw new Error(`could not claim ${kind} ${key}: it keeps changing hands`);
  }

  /** Re-ingested with other content: the old content key is free for another document. */
  async function releaseDropped(
    before: Reservation[],
    after: Reservation[],
    metadata: Metadata,
  ): Promise<void> {
    const kept = new Set(after.map((reservation) => `${reservation.kind}:${reservation.key}`));
    for (const reservation of before) {
      if (!kept.has(`${reservation.kind}:${reservation.key}`)) {
        await release(deps.eventStore, reservation.kind, reservation.key, metadata);
      }
    }
  }

  /**
   * The pipeline, one stage after another: parse (detect → parse → clean → chunk, in a parse
   * worker) → claim (duplicates) → embed → index → done. Each stage says when it ends and how long
   * it took; the outcome carries the timings.
   */
  return async function ingest(input: IngestInput): Promise<IngestionOutcome> {
    const timings: StageTimings = {};
    const stages = stageReporter(input, timings);

    // detect → parse → clean → chunk
    let parsing: { parsed: SectionsResult; release(): void } | null;
    try {
      parsing = await parse(input, stages);
    } catch (error) {
      if (input.signal.aborted) throw error;
      return { ...failedOutcome(input.fileName, (error as Error).message), timings };
    }
    const { release } = parsing;
    try {
      const outcome = await store(input, parsing.parsed, stages, timings);
      deps.observeStages?.(outcome.timings);
      return outcome;
    } finally {
      // Nothing here holds the parse's result any more when its memory is given back.
      parsing = null;
      release();
    }
  };

  /** The stages after the parse: claim → embed → index → done. */
  async function store(
    input: IngestInput,
    parsed: SectionsResult,
    stages: ReturnType<typeof stageReporter>,
    timings: StageTimings,
  ): Promise<IngestionOutcome> {
    const title = parsed.document.metadata.title || input.fileName;
    const chunks = chunkInputs(parsed);
    if (chunks.length === 0)
      return { ...failedOutcome(title, 'The document has no text to store.'), timings };

    // claim: one document per source and per content
    const claimed = await stages.run('claim', () => claimDocument(input, parsed, chunks, title));
    if ('outcome' in claimed) return { ...claimed.outcome, timings };
    const { docId, replace, reservations, contentHash, metadata } = claimed;

    const previous = replace ? (await deps.documents.read(docId)).state : null;
    try {
      // embed: the vectors, cached by content hash for the vector index to take
      await stages.run('embed', () =>
        embedWithCache(
          deps.embedder,
          deps.embeddings,
          chunks.map((chunk) => ({ hash: chunk.contentHash, text: chunk.text })),
          input.signal,
          (done, total) => stages.within('embed', done / total, `${done} of ${total} chunks`),
        ),
      );
      // index: the document's events, which the read models and the vector index apply
      const recorded = await stages.run('index', () =>
        deps.documents.execute(
          'IngestDocument',
          {
            docId,
            source: input.source,
            sourceKind: input.sourceKind,
            title,
            language: parsed.document.metadata.language ?? 'unknown',
            format: parsed.document.format,
            contentHash,
            sizeBytes: input.bytes.byteLength,
            chunkCount: chunks.length,
            section: input.section,
            collection: input.collection ?? DEFAULT_COLLECTION,
            chunks,
            replace,
            reservations,
            taskId: input.taskId ?? null,
          },
          input.caller,
        ),
      );
      const first = recorded.appended[0];
      const counts =
        first?.type === 'DocumentReingested'
          ? {
              added: first.data.chunksAdded,
              updated: first.data.chunksUpdated,
              skipped: first.data.chunksSkipped,
            }
          : { added: chunks.length, updated: 0, skipped: 0 };
      if (previous?.status === 'active') await releaseDropped(previous.reservations, reservations, metadata);
      // done
      return {
        ...emptyOutcome(title),
        docId,
        chunksAdded: counts.added,
        chunksUpdated: counts.updated,
        chunksSkipped: counts.skipped,
        position: recorded.position,
        timings,
      };
    } catch (error) {
      // Nothing was recorded: give back what this attempt claimed for a new document.
      if (!replace) {
        for (const reservation of reservations)
          await release(deps.eventStore, reservation.kind, reservation.key, metadata);
      }
      throw error;
    }
  }

  /**
   * Claims the document's source and content, or says why there is nothing to store: a duplicate,
   * or a resumed attempt whose predecessor stored the document and died before saying so.
   */
  async function claimDocument(
    input: IngestInput,
    parsed: SectionsResult,
    chunks: ChunkInput[],
    title: string,
  ): Promise<
    | { outcome: IngestionOutcome }
    | {
        docId: string;
        replace: boolean;
        reservations: Reservation[];
        contentHash: string;
        metadata: Metadata;
      }
  > {
    const contentHash =
      parsed.contentHash ?? contentHashOf(parsed.fullText ?? chunks.map((chunk) => chunk.text).join('\n'));
    const metadata: Metadata = {
      ...deps.metadata(input.caller),
      ...(input.taskId ? { causationId: `${TASK_CAUSE}${input.taskId}` } : {}),
    };
    const sourceKey = sha256(scoped(input.collection, input.source));
    const sourceType = input.sourceKind === 'url' ? 'url' : 'filepath';

    // One document per source: the same path or URL again is a duplicate, or its re-ingestion.
    const candidateId = input.docId ?? deps.newId();
    const source = await claim(SOURCE_RESERVATION, sourceKey, candidateId, input, metadata);
    let docId = candidateId;
    let replace = false;
    if (source.claimed && input.docId) {
      const stored = (await deps.documents.read(docId)).state;
      if (stored.status === 'active') {
        const [last] = await deps.eventStore.readStream(documentStream(docId), {
          direction: 'backwards',
          maxCount: 1,
        });
        return {
          outcome: {
            ...emptyOutcome(title),
            docId,
            chunksAdded: chunks.length,
            position: last?.position ?? 0,
          },
        };
      }
    }
    if (!source.claimed) {
      if (input.skipDuplicates) return { outcome: duplicateOutcome(title, sourceType, source.holder) };
      docId = source.holder.docId;
      replace = true;
    }
    const reservations: Reservation[] = [{ kind: SOURCE_RESERVATION, key: sourceKey }];
    const contentKey =
      scoped(input.collection, contentHash) === contentHash
        ? contentHash
        : sha256(scoped(input.collection, contentHash));
    const content = await claim(CONTENT_RESERVATION, contentKey, docId, input, metadata);
    if (content.claimed) reservations.push({ kind: CONTENT_RESERVATION, key: contentKey });
    else if (input.skipDuplicates) {
      if (!replace) await release(deps.eventStore, SOURCE_RESERVATION, sourceKey, metadata);
      return { outcome: duplicateOutcome(title, 'content_hash', content.holder) };
    }
    return { docId, replace, reservations, contentHash, metadata };
  }
}

/** Times stages and tells `input.onProgress` where the ingestion is. */
const STAGE_ORDER = Object.keys(INGESTION_STAGES) as IngestionStage[];

/** Where a stage starts: where the one before it ends. */
function previousEnd(stage: IngestionStage): number {
  const index = STAGE_ORDER.indexOf(stage);
  return index > 0 ? INGESTION_STAGES[STAGE_ORDER[index - 1]!] : 0;
}

function stageReporter(input: Pick<IngestInput, 'onProgress'>, timings: StageTimings) {
  const report = async (stage: IngestionStage, progress: number, detail: string): Promise<void> => {
    await input.onProgress?.({ stage, progress, detail });
  };
  return {
    /** A stage ended after `ms`, measured elsewhere (the parse worker's stages). */
    ended: (stage: IngestionStage, ms: number): Promise<void> => {
      timings[stage] = Math.round(ms * 10) / 10;
      return report(stage, INGESTION_STAGES[stage], `${stage} done`);
    },
    /** Part of a stage is done (`share` of it, 0–1). */
    within: (stage: IngestionStage, share: number, detail: string): Promise<void> => {
      const from = previousEnd(stage);
      return report(stage, from + (INGESTION_STAGES[stage] - from) * Math.min(1, share), detail);
    },
    /** Runs a stage here, timing it. */
    async run<T>(stage: IngestionStage, work: () => Promise<T>): Promise<T> {
      const started = performance.now();
      const result = await work();
      timings[stage] = Math.round((performance.now() - started) * 10) / 10;
      await report(stage, INGESTION_STAGES[stage], `${stage} done`);
      return result;
    },
  };
}

export type Ingest = ReturnType<typeof createIngestor>;
