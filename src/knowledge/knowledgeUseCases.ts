import type { BlobStore } from '../blobStore/blobStore.js';
import type { DocumentCommands, TaskCommands } from '../commands/aggregates.js';
import type { Caller } from '../commands/context.js';
import { createTask } from '../commands/newTask.js';
import { DEFAULT_COLLECTION } from '../domain/collection/events.js';
import { ForbiddenError, NotFoundError } from '../domain/shared/index.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { mapLimit } from '../mapLimit.js';
import { extensionOf } from '../parsing/detect/detectFormat.js';
import { cleanFileName } from '../parsing/fileName.js';
import { SUPPORTED_EXTENSIONS } from '../parsing/model.js';
import { CHUNKS, DOCUMENTS, type ChunkView, type DocumentView } from '../projections/knowledgeProjection.js';
import type { ReadModels } from '../projections/readModels.js';
import { documentFilter, type SearchFilters } from './searchFilters.js';
import type { Filter } from '../readStore/readStore.js';
import type { Access } from './access.js';
import type { Answerer, QuestionRequest } from './answer.js';
import { awaitTask, startGuard, type WorkQueues } from './awaitTask.js';
import { failedOutcome } from './ingest.js';
import { INGEST_UPLOAD_JOB, type UploadTaskInput } from './ingestJobs.js';
import { ingestionResource } from './resources.js';
import { SCRAPE_JOB, type ScrapeTaskInput } from './scrapeJob.js';
import type { Search, SearchRequest } from './search.js';
import { readZipUpload, type ZipLimits } from './zipUpload.js';

/** A file to ingest. */
export interface FileToIngest {
  fileName: string;
  bytes: Uint8Array;
  /** Path inside an archive: part of the upload path, so same-named files in two folders differ. */
  path?: string;
}

export interface IngestOptions {
  section: string;
  /** The collection the documents go to (`default` when absent). */
  collection?: string;
  skipDuplicates: boolean;
}

/** A task that was created, and where in the log: a read after it waits for that position. */
export interface StartedTask {
  taskId: string;
  createdAt: string;
  position: number;
}

/** An ingestion result (the spec's, snake_case) and the log position to read it after. */
export interface Ingested {
  result: Record<string, unknown>;
  position: number;
}

export interface KnowledgeUseCaseDeps {
  documents: Pick<DocumentCommands, 'execute'>;
  tasks: TaskCommands;
  blobs: Pick<BlobStore, 'put'>;
  eventStore: Pick<EventStore, 'subscribeToStream'>;
  readModels: ReadModels;
  workQueues: WorkQueues;
  search: Search;
  answer: Answerer;
  zipLimits: ZipLimits;
  access: Access;
}

/** Documents deleted by one filtered deletion, at most: a client repeats while `more` is true. */
export const MAX_DELETE_BATCH = 1_000;
/** Files of one bulk upload (or archive) ingested at once. */
const BULK_CONCURRENCY = 2;

/**
 * What can be done with the knowledge base, whoever asks: the Retrieval API's routes, the
 * assistant's tools and the CLI translate their requests into these and their answers back.
 * Ingestion runs as tasks in workers; the synchronous forms wait for their task.
 */
export function createKnowledgeUseCases(deps: KnowledgeUseCaseDeps) {
  const { readModels, access } = deps;
  const supported: ReadonlySet<string> = new Set(SUPPORTED_EXTENSIONS);

  /**
   * The documents read model's filter for what `caller` may see (nothing to add for most callers),
   * narrowed to `wanted` (a wanted collection the caller may not see matches nothing).
   */
  async function visible(caller: Caller, wanted: SearchFilters = {}): Promise<Filter> {
    return documentFilter(wanted, await access.hiddenFrom(caller.reader));
  }

  /** Refuses to add to, or delete from, a collection `caller` may not write. */
  async function mustWrite(caller: Caller, collection: string): Promise<void> {
    if (!(await access.mayWrite(caller.reader, collection))) {
      throw new ForbiddenError(
        'collection_forbidden',
        `You may not add to or delete from collection ${collection}`,
      );
    }
  }

  async function started(
    jobType: string,
    input: UploadTaskInput | ScrapeTaskInput,
    caller: Caller,
  ): Promise<StartedTask> {
    const created = await createTask(deps.tasks, jobType, { ...input }, caller);
    return {
      taskId: created.taskId,
      createdAt: created.appended[0]?.metadata.now ?? new Date().toISOString(),
      position: created.position,
    };
  }

  /** Waits for an ingestion task; 503 in bounded time when no worker can start it. */
  const finish = (taskId: string, caller: Caller, signal: AbortSignal) =>
    awaitTask(deps.eventStore, taskId, signal, startGuard(deps, taskId, caller));

  /** Stores the bytes and creates the ingestion task, or says why the file is refused. */
  async function startUpload(
    file: FileToIngest,
    options: IngestOptions,
    caller: Caller,
  ): Promise<StartedTask | { refused: string }> {
    const fileName = cleanFileName(file.fileName);
    const extension = extensionOf(fileName) ?? '';
    if (!supported.has(extension)) {
      return {
        refused: `Unsupported file type ${extension || '(no extension)'}; supported: ${[...supported].join(' ')}`,
      };
    }
    const collection = options.collection ?? DEFAULT_COLLECTION;
    await mustWrite(caller, collection);
    const input: UploadTaskInput = {
      blob: await deps.blobs.put(file.bytes),
      fileName,
      section: options.section,
      collection,
      source: `${options.section}/${file.path ? cleanPath(file.path) : fileName}`,
      skipDuplicates: options.skipDuplicates,
      actorId: caller.actorId,
      correlationId: caller.correlationId,
    };
    return started(INGEST_UPLOAD_JOB, input, caller);
  }

  /** Runs one file through the ingestion pipeline and waits for it. */
  async function upload(
    file: FileToIngest,
    options: IngestOptions,
    caller: Caller,
    signal: AbortSignal,
  ): Promise<Ingested> {
    const task = await startUpload(file, options, caller);
    const fileName = cleanFileName(file.fileName);
    const failed = (error: string) =>
      ingestionResource(failedOutcome(fileName, error), { filename: fileName });
    if ('refused' in task) return { result: failed(task.refused), position: 0 };
    const finished = await finish(task.taskId, caller, signal);
    if (finished.status === 'completed' && finished.result)
      return { result: finished.result, position: finished.position };
    return {
      result: failed(finished.error ?? `The ingestion task was ${finished.status}`),
      position: finished.position,
    };
  }

  /** Ingests several files, a few at a time; one failing does not stop the others. */
  async function uploadMany(
    files: ReadonlyArray<() => Promise<FileToIngest>>,
    options: IngestOptions,
    caller: Caller,
    signal: AbortSignal,
  ): Promise<{ result: Record<string, unknown>; position: number }> {
    // Each file is read into memory to be stored, and parsed by the same few workers.
    const outcomes = await mapLimit(files, BULK_CONCURRENCY, async (read) =>
      upload(await read(), options, caller, signal),
    );
    return {
      result: bulkResult(outcomes.map((outcome) => outcome.result)),
      position: Math.max(0, ...outcomes.map((outcome) => outcome.position)),
    };
  }

  /**
   * Ingests every supported file of a ZIP archive (throws `ZipUploadError` when the archive is over
   * the limits or unreadable); nested archives, unsupported and oversized entries are `skipped`.
   */
  async function uploadArchive(
    archive: Uint8Array,
    options: IngestOptions,
    caller: Caller,
    signal: AbortSignal,
  ): Promise<{ result: Record<string, unknown>; position: number }> {
    const contents = await readZipUpload(Buffer.from(archive), deps.zipLimits, signal);
    const skipped = [...contents.skipped];
    const outcomes = await mapLimit(contents.files, BULK_CONCURRENCY, async (file) => {
      const entry = await file.read();
      if ('skipped' in entry) {
        skipped.push({ name: file.name, reason: entry.skipped });
        return null;
      }
      return upload({ fileName: file.name, bytes: entry.bytes, path: file.name }, options, caller, signal);
    });
    const ingested = outcomes.filter((outcome) => outcome !== null);
    return {
      result: {
        ...bulkResult(ingested.map((outcome) => ({ ...outcome.result }))),
        skipped: skipped.map((entry) => ({ name: cleanPath(entry.name), reason: entry.reason })),
      },
      position: Math.max(0, ...ingested.map((outcome) => outcome.position)),
    };
  }

  /** Creates the task that fetches and ingests `urls`, one after another. */
  async function startScrape(
    urls: string[],
    options: { skipDuplicates: boolean; timeoutSeconds: number; collection?: string },
    caller: Caller,
  ): Promise<StartedTask> {
    const collection = options.collection ?? DEFAULT_COLLECTION;
    await mustWrite(caller, collection);
    const input: ScrapeTaskInput = {
      urls,
      collection,
      timeoutSeconds: options.timeoutSeconds,
      skipDuplicates: options.skipDuplicates,
      actorId: caller.actorId,
      correlationId: caller.correlationId,
    };
    return started(SCRAPE_JOB, input, caller);
  }

  /** Fetches and ingests one page, and waits for it. */
  async function scrape(
    url: string,
    options: { skipDuplicates: boolean; timeoutSeconds: number; collection?: string },
    caller: Caller,
    signal: AbortSignal,
  ): Promise<Ingested> {
    const { taskId } = await startScrape([url], options, caller);
    const finished = await finish(taskId, caller, signal);
    const result = (finished.result?.['results'] as Array<Record<string, unknown>> | undefined)?.[0];
    return {
      result:
        result ??
        ingestionResource(failedOutcome(url, finished.error ?? `The scrape task was ${finished.status}`), {
          url,
        }),
      position: finished.position,
    };
  }

  /**
   * A stored document's metadata; `NotFoundError` when there is none, or when `caller` may not see
   * it (a private document is not even said to exist).
   */
  async function document(docId: string, caller: Caller): Promise<DocumentView> {
    const doc = await readModels.get<DocumentView>(DOCUMENTS, docId);
    if (!doc || !(await access.maySee(caller.reader, doc.collection)))
      throw new NotFoundError('document_not_found', `Document ${docId} does not exist`);
    return doc;
  }

  /** A document's text, its chunks in order, up to about `maxChars`. */
  async function text(docId: string, maxChars = Infinity): Promise<string> {
    const chunks = await readModels.find<ChunkView>(CHUNKS, { filter: { docId }, sort: [['index', 1]] });
    let joined = '';
    for (const chunk of chunks) {
      if (joined.length >= maxChars) break;
      joined += (joined ? '\n\n' : '') + chunk.text;
    }
    return joined;
  }

  /**
   * The document `caller` may delete: `NotFoundError` when it does not exist or is hidden from them,
   * `ForbiddenError` when its collection is one they may not write.
   */
  async function deletable(docId: string, caller: Caller): Promise<DocumentView> {
    const doc = await document(docId, caller);
    await mustWrite(caller, doc.collection);
    return doc;
  }

  /** Deletes a document from every index; an unknown one is `not_found`. */
  async function remove(
    docId: string,
    caller: Caller,
  ): Promise<{
    status: 'deleted' | 'not_found' | 'forbidden' | 'error';
    message: string | null;
    position: number;
  }> {
    try {
      await deletable(docId, caller);
      const outcome = await deps.documents.execute('DeleteDocument', { docId }, caller);
      return { status: 'deleted', message: 'Document deleted', position: outcome.position };
    } catch (error) {
      if (error instanceof NotFoundError)
        return { status: 'not_found', message: `Document ${docId} does not exist`, position: 0 };
      if (error instanceof ForbiddenError)
        return { status: 'forbidden', message: error.message, position: 0 };
      return { status: 'error', message: (error as Error).message, position: 0 };
    }
  }

  /** Deletes the documents matching `filter`, oldest first, at most MAX_DELETE_BATCH of them. */
  async function removeWhere(filter: Filter, caller: Caller) {
    const matching = await readModels.find<DocumentView>(DOCUMENTS, {
      filter: { ...filter, ...(await visible(caller)) },
      sort: [['sequence', 1]],
      limit: MAX_DELETE_BATCH + 1,
    });
    let position = 0;
    const deleted: string[] = [];
    for (const doc of matching.slice(0, MAX_DELETE_BATCH)) {
      const outcome = await remove(doc.id, caller);
      if (outcome.status === 'deleted') deleted.push(doc.id);
      position = Math.max(position, outcome.position);
    }
    return { deleted, more: matching.length > MAX_DELETE_BATCH, position };
  }

  return {
    /** Search over what `caller` may see. */
    search: async (request: Omit<SearchRequest, 'hiddenCollections'>, caller: Caller) =>
      deps.search({ ...request, hiddenCollections: await access.hiddenFrom(caller.reader) }),
    /** An answer from what `caller` may see. */
    answer: async (request: Omit<QuestionRequest, 'hiddenCollections'>, caller: Caller) =>
      deps.answer({ ...request, hiddenCollections: await access.hiddenFrom(caller.reader) }),
    visible,
    deletable,
    startUpload,
    upload,
    uploadMany,
    uploadArchive,
    startScrape,
    scrape,
    document,
    text,
    delete: remove,
    deleteWhere: removeWhere,
  };
}

export type KnowledgeUseCases = ReturnType<typeof createKnowledgeUseCases>;

/** An archive path safe to store: clean segments, no `..`, bounded. */
function cleanPath(path: string): string {
  return path
    .split(/[\\/]/)
    .map(cleanFileName)
    .filter((segment) => segment !== '..' && segment !== '.' && segment !== 'unnamed')
    .join('/')
    .slice(-1_000);
}

/**
 * Totals that agree with the per-file results by construction: `successful` and `failed` count the
 * results whose `success` is true and false, `duplicates` those whose `is_duplicate` is true (a
 * skipped duplicate is a success that stored nothing, so it is in `successful` too), as a scrape's
 * totals count.
 */
function bulkResult(results: ReadonlyArray<Record<string, unknown>>): Record<string, unknown> {
  const failed = results.filter((result) => result['success'] !== true);
  return {
    total_files: results.length,
    successful: results.length - failed.length,
    failed: failed.length,
    duplicates: results.filter((result) => result['is_duplicate'] === true).length,
    total_chunks_added: results.reduce((sum, result) => sum + Number(result['chunks_added'] ?? 0), 0),
    results,
    errors: failed.map((result) => ({ filename: result['filename'], error: result['error'] })),
  };
}
