import type { BlobStore } from '../blobStore/blobStore.js';
import type { DocumentCommands, TaskCommands } from '../commands/aggregates.js';
import type { Caller } from '../commands/context.js';
import { createTask } from '../commands/newTask.js';
import { DEFAULT_COLLECTION } from '../domain/collection/events.js';
import { ForbiddenError, NotFoundError } from '../domain/shared/index.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import { extensionOf } from '../parsing/detect/detectFormat.js';
import { cleanFileName, cleanPath } from '../parsing/fileName.js';
import { SUPPORTED_EXTENSIONS } from '../parsing/model.js';
import { CHUNKS, DOCUMENTS, type ChunkView, type DocumentView } from '../projections/knowledgeProjection.js';
import type { ReadModels } from '../projections/readModels.js';
import { documentFilter, type SearchFilters } from './searchFilters.js';
import type { Filter } from '../readStore/readStore.js';
import type { Access } from './access.js';
import { uploadBlobs } from './uploadBlobs.js';
import type { Answerer, QuestionRequest } from './answer.js';
import { awaitTask, startGuard, type WorkQueues } from './awaitTask.js';
import { emptyOutcome, failedOutcome } from './ingest.js';
import {
  bulkFileDocumentId,
  bulkResult,
  INGEST_BULK_JOB,
  type BulkFile,
  type BulkUploadTaskInput,
} from './bulkUploadJob.js';
import { INGEST_UPLOAD_JOB, type UploadOptions, type UploadTaskInput } from './ingestJobs.js';
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
  documents: Pick<DocumentCommands, 'execute' | 'read'>;
  tasks: TaskCommands;
  blobs: Pick<BlobStore, 'put' | 'delete'>;
  eventStore: Pick<EventStore, 'subscribeToStream'>;
  readModels: ReadModels;
  workQueues: WorkQueues;
  search: Search;
  answer: Answerer;
  zipLimits: ZipLimits;
  access: Access;
  log: Logger;
}

/** Documents deleted by one filtered deletion, at most: a client repeats while `more` is true. */
export const MAX_DELETE_BATCH = 1_000;

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
    input: UploadTaskInput | BulkUploadTaskInput | ScrapeTaskInput,
    caller: Caller,
  ): Promise<StartedTask> {
    const created = await createTask(deps.tasks, jobType, { ...input }, caller).catch(
      async (error: unknown) => {
        await releaseBlobs(uploadBlobs(jobType, input));
        throw error;
      },
    );
    return {
      taskId: created.taskId,
      createdAt: created.appended[0]?.metadata.now ?? new Date().toISOString(),
      position: created.position,
    };
  }

  /**
   * Removes the stored bytes of an upload that got no task: only its task's end releases a blob, so
   * an upload refused by an event store that is down left its bytes behind, one more blob for each
   * retry a client made during the outage. The error that ended the upload is the one answered; a
   * blob that cannot be removed as well is logged and left. A task recorded after all (an append
   * whose answer was lost) then fails for want of its bytes: its client was told 503 and sends again.
   */
  async function releaseBlobs(blobs: readonly string[]): Promise<void> {
    await Promise.all(
      blobs.map((blob) =>
        deps.blobs.delete(blob).catch((error: unknown) => {
          deps.log.warn({ err: error, blob }, 'the bytes of an upload that got no task were not removed');
        }),
      ),
    );
  }

  /** Waits for an ingestion task; 503 in bounded time when no worker can start it. */
  const finish = (taskId: string, caller: Caller, signal: AbortSignal) =>
    awaitTask(deps.eventStore, taskId, signal, startGuard(deps, taskId, caller));

  /** Why a file is refused before anything is stored (its type), or null. */
  function refusal(fileName: string): string | null {
    const extension = extensionOf(fileName) ?? '';
    return supported.has(extension)
      ? null
      : `Unsupported file type ${extension || '(no extension)'}; supported: ${[...supported].join(' ')}`;
  }

  /** What every file of one upload shares, once the caller may write to its collection. */
  async function uploadOptions(options: IngestOptions, caller: Caller): Promise<UploadOptions> {
    const collection = options.collection ?? DEFAULT_COLLECTION;
    await mustWrite(caller, collection);
    return {
      section: options.section,
      collection,
      skipDuplicates: options.skipDuplicates,
      actorId: caller.actorId,
      correlationId: caller.correlationId,
    };
  }

  const sourceOf = (section: string, file: FileToIngest, fileName: string): string =>
    `${section}/${file.path ? cleanPath(file.path) : fileName}`;

  /** Stores the bytes and creates the ingestion task, or says why the file is refused. */
  async function startUpload(
    file: FileToIngest,
    options: IngestOptions,
    caller: Caller,
  ): Promise<StartedTask | { refused: string }> {
    const fileName = cleanFileName(file.fileName);
    const refused = refusal(fileName);
    if (refused) return { refused };
    const shared = await uploadOptions(options, caller);
    const input: UploadTaskInput = {
      ...shared,
      blob: await deps.blobs.put(file.bytes),
      fileName,
      source: sourceOf(options.section, file, fileName),
    };
    return started(INGEST_UPLOAD_JOB, input, caller);
  }

  /** The spec's ingestion result of a file that was not ingested. */
  const failedFile = (fileName: string, error: string): Record<string, unknown> =>
    ingestionResource(failedOutcome(fileName, error), { filename: fileName });

  /** Runs one file through the ingestion pipeline and waits for it. */
  async function upload(
    file: FileToIngest,
    options: IngestOptions,
    caller: Caller,
    signal: AbortSignal,
  ): Promise<Ingested> {
    const task = await startUpload(file, options, caller);
    const fileName = cleanFileName(file.fileName);
    if ('refused' in task) return { result: failedFile(fileName, task.refused), position: 0 };
    const finished = await finish(task.taskId, caller, signal);
    if (finished.status === 'completed' && finished.result)
      return { result: finished.result, position: finished.position };
    return {
      result: failedFile(fileName, finished.error ?? `The ingestion task was ${finished.status}`),
      position: finished.position,
    };
  }

  /**
   * Runs a bulk upload's task and waits for it: its result; or, when it did not complete (cancelled,
   * out of attempts), each file's as far as it went — stored by the task before it ended (its
   * document is found under the id the job gives the file), or failed with the task's error.
   */
  async function runBulk(
    input: BulkUploadTaskInput,
    fileNames: readonly string[],
    caller: Caller,
    signal: AbortSignal,
  ): Promise<{ result: Record<string, unknown>; position: number }> {
    const task = await started(INGEST_BULK_JOB, input, caller);
    const finished = await finish(task.taskId, caller, signal);
    if (finished.status === 'completed' && finished.result)
      return { result: finished.result, position: finished.position };
    const error = finished.error ?? `The ingestion task was ${finished.status}`;
    const results = await Promise.all(
      fileNames.map(async (fileName, at) => {
        const docId = bulkFileDocumentId(task.taskId, at);
        const { state } = await deps.documents.read(docId);
        if (state.status !== 'active' || !state.tasks.includes(task.taskId))
          return failedFile(fileName, error);
        return ingestionResource(
          { ...emptyOutcome(state.title), docId, chunksAdded: state.chunkHashes.length },
          { filename: fileName },
        );
      }),
    );
    return { result: bulkResult(results), position: finished.position };
  }

  /**
   * Ingests several files in one task (one file failing does not stop the others): each file is
   * read into memory once to be stored, and the task's worker ingests them a few at a time.
   */
  async function uploadMany(
    files: ReadonlyArray<() => Promise<FileToIngest>>,
    options: IngestOptions,
    caller: Caller,
    signal: AbortSignal,
  ): Promise<{ result: Record<string, unknown>; position: number }> {
    const shared = await uploadOptions(options, caller);
    /** Per file in upload order: refused at once, or the index of its stored blob. */
    const slots: Array<{ refused: Record<string, unknown> } | { stored: number }> = [];
    const stored: BulkFile[] = [];
    try {
      for (const read of files) {
        const file = await read();
        const fileName = cleanFileName(file.fileName);
        const refused = refusal(fileName);
        if (refused) {
          slots.push({ refused: failedFile(fileName, refused) });
          continue;
        }
        slots.push({ stored: stored.length });
        stored.push({
          blob: await deps.blobs.put(file.bytes),
          fileName,
          source: sourceOf(options.section, file, fileName),
        });
      }
    } catch (error) {
      // A file that could not be read or stored ends the upload: the files stored before it go.
      await releaseBlobs(stored.map((file) => file.blob));
      throw error;
    }
    const ran =
      stored.length === 0
        ? { result: bulkResult([]), position: 0 }
        : await runBulk(
            { ...shared, files: stored },
            stored.map((file) => file.fileName),
            caller,
            signal,
          );
    const results = (ran.result['results'] ?? []) as Array<Record<string, unknown>>;
    return {
      result: bulkResult(
        slots.map((slot) =>
          'refused' in slot
            ? slot.refused
            : (results[slot.stored] ??
              failedFile(
                stored[slot.stored]!.fileName,
                'The ingestion task recorded no result for this file',
              )),
        ),
      ),
      position: ran.position,
    };
  }

  /**
   * Ingests every supported file of a ZIP archive in one task (throws `ZipUploadError` here, before
   * anything is stored, when the archive is over the limits or unreadable); nested archives,
   * unsupported and oversized entries are `skipped`.
   */
  async function uploadArchive(
    archive: Uint8Array,
    options: IngestOptions,
    caller: Caller,
    signal: AbortSignal,
  ): Promise<{ result: Record<string, unknown>; position: number }> {
    const contents = await readZipUpload(Buffer.from(archive), deps.zipLimits, signal);
    const shared = await uploadOptions(options, caller);
    const skipped = contents.skipped.map((entry) => ({ name: cleanPath(entry.name), reason: entry.reason }));
    if (contents.files.length === 0) return { result: { ...bulkResult([]), skipped }, position: 0 };
    const ran = await runBulk(
      { ...shared, archive: await deps.blobs.put(archive) },
      contents.files.map((file) => cleanFileName(file.name)),
      caller,
      signal,
    );
    return 'skipped' in ran.result ? ran : { ...ran, result: { ...ran.result, skipped } };
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
