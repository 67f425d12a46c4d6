import type { BlobStore } from '../blobStore/blobStore.js';
import { mapLimit } from '../mapLimit.js';
import { cleanFileName, cleanPath } from '../parsing/fileName.js';
import type { JobType } from '../workers/jobs.js';
import { derivedId } from './derivedId.js';
import type { Ingest } from './ingest.js';
import { INGESTION_STAGES } from './ingest.js';
import { ingestUploaded, taskProgressOf, type UploadedFile, type UploadOptions } from './ingestJobs.js';
import { readZipUpload, type ZipLimits } from './zipUpload.js';

export const INGEST_BULK_JOB = 'ingest_bulk';

/** A file of a bulk upload, stored as a blob of its own. */
export interface BulkFile {
  blob: string;
  fileName: string;
  source: string;
}

/** What a bulk upload task is given: its files one blob each, or one ZIP archive whose entries they are. */
export type BulkUploadTaskInput = UploadOptions & ({ files: BulkFile[] } | { archive: string });

/** The document id a bulk upload's task gives its file at `index`: the same in every attempt. */
export const bulkFileDocumentId = (taskId: string, index: number): string =>
  derivedId(taskId, `file:${index}`);

/** Files of one bulk upload ingested at once: two keep the parse workers busy while one is stored. */
const FILES_IN_FLIGHT = 2;

/**
 * Ingests the files of a bulk or ZIP upload in one task: one task's events, one job and one wait
 * for the whole upload instead of one of each per file (what a small file's ingestion mostly cost).
 * Each file is still claimed and stored as a document of its own, with an id derived from the task
 * and the file's place in the upload, so a resumed attempt owns what its predecessor claimed and
 * stores nothing twice. Progress is per file. A file that cannot be read or parsed is a failed file
 * in the result, not a failed task. Its result is the bulk upload result (and, for an archive, the
 * entries skipped). The blobs are removed once the task has ended (`blobReleaseReactor`).
 */
export function bulkUploadJob(deps: { ingest: Ingest; blobs: BlobStore; zipLimits: ZipLimits }): JobType {
  return {
    name: INGEST_BULK_JOB,
    maxAttempts: 3,
    concurrency: 2,
    async run(context) {
      const task = context.input as unknown as BulkUploadTaskInput;
      const { files, skipped } =
        'archive' in task
          ? await archiveFiles(deps, task.archive, task.section, context.signal)
          : { files: task.files.map((file) => storedFile(deps.blobs, file)), skipped: [] };
      const share = (at: number, within: number): number => (at + within) / Math.max(1, files.length);
      const results = await mapLimit(files, FILES_IN_FLIGHT, async (file, at) => {
        const uploaded = await file();
        if ('skipped' in uploaded) {
          skipped.push(uploaded.skipped);
          return null;
        }
        return ingestUploaded(context, deps.ingest, uploaded, {
          ...task,
          docId: bulkFileDocumentId(context.taskId, at),
          onWait: (message) => context.progress(share(at, INGESTION_STAGES.chunk), `claim: ${message}`),
          onProgress: taskProgressOf(context.progress, (within) => share(at, within)),
        });
      });
      await context.progress(1, `done: ${files.length} files`);
      const ingested = results.filter((result) => result !== null);
      return { ...bulkResult(ingested), ...('archive' in task ? { skipped } : {}) };
    },
  };
}

interface Skipped {
  name: string;
  reason: string;
}

/** A file of the upload, or the archive entry left out (and why) once it was read. */
type PendingFile = () => Promise<UploadedFile | { skipped: Skipped }>;

function storedFile(blobs: BlobStore, file: BulkFile): PendingFile {
  return async () => ({ fileName: file.fileName, source: file.source, read: () => blobs.get(file.blob) });
}

/**
 * The files of a stored ZIP archive, inflated one at a time when their turn comes, and the entries
 * left out from the start. An entry over a limit or corrupt is left out when it is read.
 */
async function archiveFiles(
  deps: { blobs: BlobStore; zipLimits: ZipLimits },
  blob: string,
  section: string,
  signal: AbortSignal,
): Promise<{ files: PendingFile[]; skipped: Skipped[] }> {
  const contents = await readZipUpload(Buffer.from(await deps.blobs.get(blob)), deps.zipLimits, signal);
  const skipped = contents.skipped.map((entry) => ({ name: cleanPath(entry.name), reason: entry.reason }));
  const files = contents.files.map((entry): PendingFile => async () => {
    const read = await entry.read();
    if ('skipped' in read) return { skipped: { name: cleanPath(entry.name), reason: read.skipped } };
    return {
      fileName: cleanFileName(entry.name),
      source: `${section}/${cleanPath(entry.name)}`,
      read: async () => read.bytes,
    };
  });
  return { files, skipped };
}

/**
 * Totals that agree with the per-file results by construction: `successful` and `failed` count the
 * results whose `success` is true and false, `duplicates` those whose `is_duplicate` is true (a
 * skipped duplicate is a success that stored nothing, so it is in `successful` too), as a scrape's
 * totals count.
 */
export function bulkResult(results: ReadonlyArray<Record<string, unknown>>): Record<string, unknown> {
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
