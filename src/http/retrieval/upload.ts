import { readFile } from 'node:fs/promises';
import type { TaskCommands } from '../../commands/aggregates.js';
import type { EventStore } from '../../eventStore/eventStore.js';
import type { BlobStore } from '../../blobStore/blobStore.js';
import { awaitTask, startGuard, type WorkQueues } from '../../knowledge/awaitTask.js';
import { readZipUpload, ZipUploadError, type ZipLimits } from '../../knowledge/zipUpload.js';
import { INGEST_UPLOAD_JOB, type UploadTaskInput } from '../../knowledge/ingestJobs.js';
import { VECTORS_PROJECTION } from '../../knowledge/vectorProjector.js';
import { extensionOf } from '../../parsing/detect/detectFormat.js';
import { SUPPORTED_EXTENSIONS } from '../../parsing/model.js';
import { KNOWLEDGE } from '../../projections/knowledgeProjection.js';
import { TASKS } from '../../projections/tasksProjection.js';
import type { Caller } from '../../commands/context.js';
import { mapLimit } from '../../mapLimit.js';
import { HttpError } from '../httpError.js';
import { cleanFileName } from '../multipart.js';
import type { UploadedFile } from '../route.js';
import { defineRoute } from '../route.js';
import { errorResponses, errorSchema } from './schemas.js';
import { taskCreatedSchema } from './taskCreated.js';
import { createTask } from '../../commands/newTask.js';

export interface UploadRouteDeps {
  tasks: TaskCommands;
  eventStore: Pick<EventStore, 'subscribeToStream'>;
  workQueues: WorkQueues;
  blobs: BlobStore;
  maxFilesPerBulk: number;
  zipLimits: ZipLimits;
}

type FileInput = {
  fileName: string;
  bytes: Uint8Array;
  /** Path inside an archive: part of the upload path, so same-named files in two folders differ. */
  path?: string;
};

const READ_AFTER_INGEST = [TASKS, KNOWLEDGE, VECTORS_PROJECTION];
/** Files of one bulk upload (or archive) ingested at once. */
const BULK_CONCURRENCY = 2;

const sectionField = {
  type: 'object',
  properties: {
    section: {
      type: 'string',
      default: 'uploaded',
      minLength: 1,
      maxLength: 200,
      description: 'Section or category',
    },
    skip_duplicates: {
      type: 'boolean',
      default: true,
      description:
        'Skip a file whose path or content is already stored (false: ingest it again; unchanged chunks are skipped)',
    },
  },
  required: ['section', 'skip_duplicates'],
} as const;

export const ingestionSchema = {
  type: 'object',
  required: [
    'success',
    'title',
    'chunks_added',
    'chunks_updated',
    'chunks_skipped',
    'error',
    'is_duplicate',
    'duplicate_type',
    'existing_doc_id',
    'existing_doc_title',
    'duplicate_message',
  ],
  properties: {
    success: { type: 'boolean' },
    filename: { type: 'string' },
    url: { type: 'string' },
    title: { type: 'string' },
    doc_id: { type: ['string', 'null'], description: 'The stored document (null when nothing was stored)' },
    chunks_added: { type: 'integer' },
    chunks_updated: { type: 'integer' },
    chunks_skipped: { type: 'integer' },
    error: { type: ['string', 'null'] },
    is_duplicate: { type: 'boolean' },
    duplicate_type: { type: ['string', 'null'], enum: ['filepath', 'url', 'content_hash', null] },
    existing_doc_id: { type: ['string', 'null'] },
    existing_doc_title: { type: ['string', 'null'] },
    duplicate_message: { type: ['string', 'null'] },
    timings_ms: {
      type: 'object',
      description:
        'Milliseconds each stage of the ingestion took, for the stages it reached: receive, detect, parse, clean, chunk (in a parse worker), claim (duplicates), embed, index',
      additionalProperties: { type: 'number' },
    },
  },
} as const;

function unsupportedResult(fileName: string, message: string): Record<string, unknown> {
  return {
    success: false,
    filename: fileName,
    title: fileName,
    doc_id: null,
    chunks_added: 0,
    chunks_updated: 0,
    chunks_skipped: 0,
    error: message,
    is_duplicate: false,
    duplicate_type: null,
    existing_doc_id: null,
    existing_doc_title: null,
    duplicate_message: null,
    timings_ms: {},
  };
}

export function uploadRoutes(deps: UploadRouteDeps) {
  const supported: ReadonlySet<string> = new Set(SUPPORTED_EXTENSIONS);

  /** Stores the bytes and creates the ingestion task; null when the file's type is not supported. */
  async function startIngestion(
    file: FileInput,
    fields: { section: string; skip_duplicates: boolean },
    caller: Caller,
  ): Promise<{ taskId: string; createdAt: string; position: number } | { refused: string }> {
    const fileName = cleanFileName(file.fileName);
    const extension = extensionOf(fileName) ?? '';
    if (!supported.has(extension)) {
      return {
        refused: `Unsupported file type ${extension || '(no extension)'}; supported: ${[...supported].join(' ')}`,
      };
    }
    const input: UploadTaskInput = {
      blob: await deps.blobs.put(file.bytes),
      fileName,
      section: fields.section,
      source: `${fields.section}/${file.path ? cleanPath(file.path) : fileName}`,
      skipDuplicates: fields.skip_duplicates,
      actorId: caller.actorId,
      correlationId: caller.correlationId,
    };
    const created = await createTask(deps.tasks, INGEST_UPLOAD_JOB, { ...input }, caller);
    return {
      taskId: created.taskId,
      createdAt: created.appended[0]?.metadata.now ?? new Date().toISOString(),
      position: created.position,
    };
  }

  /** Runs one file through the ingestion pipeline and waits for it: the spec's ingestion result. */
  async function ingestNow(
    file: FileInput,
    fields: { section: string; skip_duplicates: boolean },
    caller: Caller,
    signal: AbortSignal,
  ): Promise<{ result: Record<string, unknown>; position: number }> {
    const started = await startIngestion(file, fields, caller);
    const fileName = cleanFileName(file.fileName);
    if ('refused' in started) return { result: unsupportedResult(fileName, started.refused), position: 0 };
    const finished = await awaitTask(
      deps.eventStore,
      started.taskId,
      signal,
      startGuard(deps, started.taskId, caller),
    );
    if (finished.status === 'completed' && finished.result)
      return { result: finished.result, position: finished.position };
    return {
      result: unsupportedResult(fileName, finished.error ?? `The ingestion task was ${finished.status}`),
      position: finished.position,
    };
  }

  const onlyFile = async (files: UploadedFile[]) => {
    const file = files.find((candidate) => candidate.field === 'file')!;
    return { fileName: file.fileName, bytes: await readFile(file.path) };
  };

  return [
    defineRoute({
      method: 'post',
      path: '/upload',
      operationId: 'uploadDocument',
      summary: 'Upload a file: parse, chunk, embed and store it',
      description:
        'Answers when the document is stored and searchable. An unsupported or broken file answers 200 with success false and the reason in error; nothing is stored. A duplicate (same upload path <section>/<file name>, or same text) is skipped unless skip_duplicates is false.',
      tags: ['Upload'],
      readAfterWrite: READ_AFTER_INGEST,
      body: {
        contentType: 'multipart/form-data',
        files: { file: { required: true, multiple: false, description: 'The document' } },
        schema: sectionField,
      },
      responses: {
        200: { description: 'Ingestion result', schema: ingestionSchema },
        413: { description: 'Too large', schema: errorSchema },
        ...errorResponses,
      },
      async handle({ body, files, caller, signal }) {
        const { result, position } = await ingestNow(await onlyFile(files), body, caller, signal);
        return { body: result, ...(position ? { position } : {}) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/upload/async',
      operationId: 'uploadDocumentAsync',
      summary: 'Upload a file and ingest it in the background',
      description:
        "Answers at once with a task. The task's result, once completed, is the ingestion result of /upload (with doc_id); an unsupported file is refused at once with 415.",
      tags: ['Upload'],
      readAfterWrite: [TASKS],
      body: {
        contentType: 'multipart/form-data',
        files: { file: { required: true, multiple: false, description: 'The document' } },
        schema: sectionField,
      },
      responses: {
        202: { description: 'The task', schema: taskCreatedSchema },
        413: { description: 'Too large', schema: errorSchema },
        415: { description: 'Unsupported file type', schema: errorSchema },
        ...errorResponses,
      },
      async handle({ body, files, caller }) {
        const started = await startIngestion(await onlyFile(files), body, caller);
        if ('refused' in started) throw new HttpError(415, 'unsupported_format', started.refused);
        return {
          status: 202,
          // The task's read model holds it before the answer: the client's next GET /tasks/{id} finds it.
          position: started.position,
          body: {
            task_id: started.taskId,
            status: 'pending',
            message: 'Upload accepted; follow the task',
            created_at: started.createdAt,
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/upload/bulk',
      operationId: 'uploadDocuments',
      summary: 'Upload several files (repeated files field)',
      description: 'Each file is ingested as by /upload; one failing file does not stop the others.',
      tags: ['Upload'],
      readAfterWrite: READ_AFTER_INGEST,
      body: {
        contentType: 'multipart/form-data',
        files: { files: { required: true, multiple: true, description: 'The documents' } },
        schema: sectionField,
      },
      responses: {
        200: {
          description: 'Per-file results and totals',
          schema: {
            type: 'object',
            required: [
              'total_files',
              'successful',
              'failed',
              'duplicates',
              'total_chunks_added',
              'results',
              'errors',
            ],
            properties: {
              total_files: { type: 'integer' },
              successful: { type: 'integer', description: 'Stored (duplicates not included)' },
              failed: { type: 'integer' },
              duplicates: { type: 'integer' },
              total_chunks_added: { type: 'integer' },
              results: { type: 'array', items: ingestionSchema },
              errors: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { filename: { type: 'string' }, error: { type: 'string' } },
                },
              },
            },
          },
        },
        413: { description: 'Too large', schema: errorSchema },
        ...errorResponses,
      },
      async handle({ body, files, caller, signal }) {
        const uploads = files.filter((file) => file.field === 'files');
        if (uploads.length > deps.maxFilesPerBulk) {
          throw new HttpError(
            413,
            'too_many_files',
            `At most ${deps.maxFilesPerBulk} files per bulk upload; got ${uploads.length}`,
          );
        }
        // A few at a time: each file is read into memory to be stored, and parsed by the same few workers.
        const outcomes = await mapLimit(uploads, BULK_CONCURRENCY, async (file) =>
          ingestNow({ fileName: file.fileName, bytes: await readFile(file.path) }, body, caller, signal),
        );
        return {
          body: bulkResult(outcomes.map((outcome) => outcome.result)),
          position: Math.max(0, ...outcomes.map((outcome) => outcome.position)),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/upload/bulk/zip',
      operationId: 'uploadZip',
      summary: 'Upload a ZIP archive: every supported file inside is ingested',
      description:
        "The archive is checked before anything is inflated (entry count, declared total size; names with .. or absolute paths make it unreadable) and refused with 413/422 when over the limits. Inside, nested archives, unsupported types and files over the per-file limit are listed in skipped, not fatal. The answer is the bulk upload result plus skipped; each file's upload path is <section>/<path inside the archive>.",
      tags: ['Upload'],
      readAfterWrite: READ_AFTER_INGEST,
      body: {
        contentType: 'multipart/form-data',
        files: { file: { required: true, multiple: false, description: 'The ZIP archive' } },
        schema: sectionField,
      },
      responses: {
        200: {
          description: 'Per-file results, totals, and the entries not extracted',
          schema: {
            type: 'object',
            required: [
              'total_files',
              'successful',
              'failed',
              'duplicates',
              'total_chunks_added',
              'results',
              'errors',
              'skipped',
            ],
            properties: {
              total_files: { type: 'integer' },
              successful: { type: 'integer' },
              failed: { type: 'integer' },
              duplicates: { type: 'integer' },
              total_chunks_added: { type: 'integer' },
              results: { type: 'array', items: ingestionSchema },
              errors: { type: 'array' },
              skipped: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { name: { type: 'string' }, reason: { type: 'string' } },
                },
              },
            },
          },
        },
        ...errorResponses,
        413: { description: 'The archive is over the limits', schema: errorSchema },
        422: { description: 'Invalid fields, or not a readable ZIP archive', schema: errorSchema },
      },
      async handle({ body, files, caller, signal }) {
        const archive = await onlyFile(files);
        let contents;
        try {
          contents = await readZipUpload(Buffer.from(archive.bytes), deps.zipLimits, signal);
        } catch (error) {
          if (!(error instanceof ZipUploadError)) throw error;
          const tooLarge = /limit|entries/.test(error.message);
          throw new HttpError(
            tooLarge ? 413 : 422,
            tooLarge ? 'archive_too_large' : 'invalid_archive',
            error.message,
          );
        }
        const skipped = [...contents.skipped];
        const outcomes = await mapLimit(contents.files, BULK_CONCURRENCY, async (file) => {
          const entry = await file.read();
          if ('skipped' in entry) {
            skipped.push({ name: file.name, reason: entry.skipped });
            return null;
          }
          return ingestNow(
            { fileName: file.name, bytes: entry.bytes, path: file.name },
            body,
            caller,
            signal,
          );
        });
        const ingested = outcomes.filter((outcome) => outcome !== null);
        return {
          body: {
            ...bulkResult(ingested.map((outcome) => ({ ...outcome.result }))),
            skipped: skipped.map((entry) => ({ name: cleanPath(entry.name), reason: entry.reason })),
          },
          position: Math.max(0, ...ingested.map((outcome) => outcome.position)),
        };
      },
    }),
  ];
}

/** An archive path safe to store: clean segments, no `..`, bounded. */
function cleanPath(path: string): string {
  return path
    .split(/[\\/]/)
    .map(cleanFileName)
    .filter((segment) => segment !== '..' && segment !== '.' && segment !== 'unnamed')
    .join('/')
    .slice(-1_000);
}

/** Totals that agree with the per-file results by construction. */
function bulkResult(results: ReadonlyArray<Record<string, unknown>>): Record<string, unknown> {
  const duplicates = results.filter((result) => result['is_duplicate'] === true).length;
  const failed = results.filter((result) => result['success'] !== true);
  return {
    total_files: results.length,
    successful: results.length - failed.length - duplicates,
    failed: failed.length,
    duplicates,
    total_chunks_added: results.reduce((sum, result) => sum + Number(result['chunks_added'] ?? 0), 0),
    results,
    errors: failed.map((result) => ({ filename: result['filename'], error: result['error'] })),
  };
}
