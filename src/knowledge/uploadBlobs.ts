import { INGEST_BULK_JOB } from './bulkUploadJob.js';
import { INGEST_UPLOAD_JOB } from './ingestJobs.js';

/** The blobs an upload task's input names: its file, a bulk upload's files, or its archive. */
export function uploadBlobs(jobType: string, input: unknown): string[] {
  if (typeof input !== 'object' || input === null) return [];
  const fields = input as Record<string, unknown>;
  const named = (value: unknown): string[] => (typeof value === 'string' ? [value] : []);
  if (jobType === INGEST_UPLOAD_JOB) return named(fields['blob']);
  if (jobType !== INGEST_BULK_JOB) return [];
  const files = Array.isArray(fields['files']) ? (fields['files'] as unknown[]) : [];
  return [
    ...named(fields['archive']),
    ...files.flatMap((file) =>
      typeof file === 'object' && file !== null ? named((file as Record<string, unknown>)['blob']) : [],
    ),
  ];
}
