import type { JobType } from '../workers/jobs.js';
import type { BlobStore } from '../blobStore/blobStore.js';
import { BlobMissingError } from '../blobStore/blobStore.js';
import type { Ingest, IngestionOutcome } from './ingest.js';
import { failedOutcome } from './ingest.js';
import { ingestionResource } from './resources.js';

export const INGEST_UPLOAD_JOB = 'ingest_upload';

/** What an upload task is given: the stored bytes and the form's fields. */
export interface UploadTaskInput {
  blob: string;
  fileName: string;
  section: string;
  source: string;
  skipDuplicates: boolean;
  /** Who asked, so the document's events name them and the request's correlation id. */
  actorId: string;
  correlationId: string;
}

/**
 * Ingests one uploaded file in a worker. Its result is the spec's ingestion result (plus `doc_id`).
 * A broken or unsupported file is a completed task with `success: false`: the input failed, not the
 * task. The blob is removed once the task has ended, by `blobReleaseReactor`.
 */
export function uploadJob(deps: { ingest: Ingest; blobs: BlobStore }): JobType {
  return {
    name: INGEST_UPLOAD_JOB,
    maxAttempts: 3,
    concurrency: 2,
    async run({ taskId, input, signal, progress, log }) {
      const task = input as unknown as UploadTaskInput;
      let outcome: IngestionOutcome;
      try {
        const bytes = await deps.blobs.get(task.blob);
        await progress(0.1, 'parsing');
        outcome = await deps.ingest({
          fileName: task.fileName,
          bytes,
          source: task.source,
          sourceKind: 'upload',
          section: task.section,
          skipDuplicates: task.skipDuplicates,
          caller: { actorId: task.actorId, correlationId: task.correlationId },
          signal,
          taskId,
          // One task, one document: its id is the task's, the same in every attempt.
          docId: taskId,
          onWait: (message) => progress(0.1, message),
        });
      } catch (error) {
        if (!(error instanceof BlobMissingError)) throw error;
        log.warn({ blob: task.blob }, 'upload blob missing');
        outcome = failedOutcome(task.fileName, 'The uploaded file is no longer available; upload it again.');
      }
      // The bytes stay until the task has ended (blobReleaseReactor deletes them then): a worker that
      // died between deleting them and recording the outcome left a task its next attempt could
      // not finish.
      return ingestionResource(outcome, { filename: task.fileName });
    },
  };
}
