import type { JobContext, JobType } from '../workers/jobs.js';
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
export interface UploadTaskInput extends UploadOptions {
  blob: string;
  fileName: string;
  source: string;
}

/** What an upload's files share: where they go and who asked. */
export interface UploadOptions {
  section: string;
  /** Absent in tasks created before collections: `default`. */
  collection?: string;
  skipDuplicates: boolean;
  /** Who asked, so the document's events name them and the request's correlation id. */
  actorId: string;
  correlationId: string;
}

/** One uploaded file as a job meets it: its name, its source, and how to read its bytes. */
export interface UploadedFile {
  fileName: string;
  source: string;
  read(): Promise<Uint8Array>;
}

/**
 * Ingests one uploaded file within a task: reads its bytes (the receive stage), then runs the
 * pipeline. Its result is the spec's ingestion result (plus `doc_id`); bytes that are gone
 * (`BlobMissingError`) are a failed file, not a failed task.
 */
export async function ingestUploaded(
  context: Pick<JobContext, 'taskId' | 'signal' | 'log'>,
  ingest: Ingest,
  file: UploadedFile,
  options: UploadOptions & {
    docId: string;
    onWait: (message: string) => Promise<void>;
    onProgress: (report: StageReport) => Promise<void>;
  },
): Promise<Record<string, unknown>> {
  let outcome: IngestionOutcome;
  try {
    const started = performance.now();
    const bytes = await file.read();
    const receive = performance.now() - started;
    await options.onProgress({
      stage: 'receive',
      progress: INGESTION_STAGES.receive,
      detail: `${bytes.byteLength} bytes`,
    });
    outcome = await ingest({
      fileName: file.fileName,
      bytes,
      source: file.source,
      sourceKind: 'upload',
      section: options.section,
      ...(options.collection ? { collection: options.collection } : {}),
      skipDuplicates: options.skipDuplicates,
      caller: { actorId: options.actorId, correlationId: options.correlationId },
      signal: context.signal,
      taskId: context.taskId,
      docId: options.docId,
      onWait: options.onWait,
      onProgress: options.onProgress,
    });
    outcome = { ...outcome, timings: { receive: Math.round(receive * 10) / 10, ...outcome.timings } };
  } catch (error) {
    if (!(error instanceof BlobMissingError)) throw error;
    context.log.warn({ file: file.fileName }, 'upload blob missing');
    outcome = failedOutcome(file.fileName, 'The uploaded file is no longer available; upload it again.');
  }
  return ingestionResource(outcome, { filename: file.fileName });
}

/**
 * Ingests one uploaded file in a worker. Its result is the spec's ingestion result (plus `doc_id`).
 * A broken or unsupported file is a completed task with `success: false`: the input failed, not the
 * task. The blob is removed once the task has ended, by `blobReleaseReactor`: a worker that died
 * between deleting it and recording the outcome would leave a task its next attempt could not finish.
 */
export function uploadJob(deps: { ingest: Ingest; blobs: BlobStore }): JobType {
  return {
    name: INGEST_UPLOAD_JOB,
    maxAttempts: 3,
    concurrency: 2,
    run: (context) => {
      const task = context.input as unknown as UploadTaskInput;
      return ingestUploaded(
        context,
        deps.ingest,
        { fileName: task.fileName, source: task.source, read: () => deps.blobs.get(task.blob) },
        {
          ...task,
          // One task, one document: its id is the task's, the same in every attempt.
          docId: context.taskId,
          onWait: (message) => context.progress(INGESTION_STAGES.chunk, `claim: ${message}`),
          onProgress: taskProgressOf(context.progress),
        },
      );
    },
  };
}
