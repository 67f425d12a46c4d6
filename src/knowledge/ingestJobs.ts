import type { JobType } from '../workers/jobs.js';
import type { BlobStore } from '../blobStore/blobStore.js';
import { BlobMissingError } from '../blobStore/blobStore.js';
import type { Ingest, IngestionOutcome, StageReport } from './ingest.js';
import { failedOutcome, INGESTION_STAGES } from './ingest.js';
import { ingestionResource } from './resources.js';

export const INGEST_UPLOAD_JOB = 'ingest_upload';

/** The least time between two progress reports of an ingestion: each one is an event in the log. */
const PROGRESS_INTERVAL_MS = 500;

/**
 * An ingestion's progress as a task records it: the first report once PROGRESS_INTERVAL_MS of work
 * have passed, then at most one every PROGRESS_INTERVAL_MS. A small file is stored before any is
 * due, so its progress costs no event (its task goes from started to completed), and a long one
 * shows its stage and page twice a second. `scale` maps the ingestion's share onto the task's (a
 * scrape ingests several pages).
 */
export function taskProgressOf(
  progress: (fraction: number, message?: string) => Promise<void>,
  scale: (share: number) => number = (share) => share,
  clock: () => number = () => performance.now(),
): (report: StageReport) => Promise<void> {
  let last = clock();
  return async (report) => {
    const now = clock();
    if (now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    await progress(scale(report.progress), `${report.stage}: ${report.detail}`);
  };
}

/** What an upload task is given: the stored bytes and the form's fields. */
export interface UploadTaskInput {
  blob: string;
  fileName: string;
  section: string;
  /** Absent in tasks created before collections: `default`. */
  collection?: string;
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
      const onProgress = taskProgressOf(progress);
      try {
        const started = performance.now();
        const bytes = await deps.blobs.get(task.blob);
        const receive = performance.now() - started;
        await onProgress({
          stage: 'receive',
          progress: INGESTION_STAGES.receive,
          detail: `${bytes.byteLength} bytes`,
        });
        outcome = await deps.ingest({
          fileName: task.fileName,
          bytes,
          source: task.source,
          sourceKind: 'upload',
          section: task.section,
          ...(task.collection ? { collection: task.collection } : {}),
          skipDuplicates: task.skipDuplicates,
          caller: { actorId: task.actorId, correlationId: task.correlationId },
          signal,
          taskId,
          // One task, one document: its id is the task's, the same in every attempt.
          docId: taskId,
          onWait: (message) => progress(INGESTION_STAGES.chunk, `claim: ${message}`),
          onProgress,
        });
        outcome = { ...outcome, timings: { receive: Math.round(receive * 10) / 10, ...outcome.timings } };
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
