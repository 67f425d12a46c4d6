import type { KnowledgeUseCases } from '../../knowledge/knowledgeUseCases.js';
import { ZipUploadError } from '../../knowledge/zipUpload.js';
import { VECTORS_PROJECTION } from '../../knowledge/vectorProjector.js';
import { KNOWLEDGE } from '../../projections/knowledgeProjection.js';
import { TASKS } from '../../projections/tasksProjection.js';
import { HttpError } from '../httpError.js';
import type { UploadedFile } from '../route.js';
import { defineRoute } from '../route.js';
import { collectionField, errorResponses, errorSchema } from './schemas.js';
import { taskCreatedSchema } from './taskCreated.js';

export interface UploadRouteDeps {
  knowledge: Pick<KnowledgeUseCases, 'startUpload' | 'upload' | 'uploadMany' | 'uploadArchive'>;
  maxFilesPerBulk: number;
}

const READ_AFTER_INGEST = [TASKS, KNOWLEDGE, VECTORS_PROJECTION];

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
    collection: collectionField,
    skip_duplicates: {
      type: 'boolean',
      default: true,
      description:
        'Skip a file whose path or content is already stored (false: ingest it again; unchanged chunks are skipped)',
    },
  },
  required: ['section', 'collection', 'skip_duplicates'],
} as const;

/** One file's form: where it was in a folder, so that same-named files of two folders stay two documents. */
const singleFileFields = {
  ...sectionField,
  properties: {
    ...sectionField.properties,
    path: {
      type: 'string',
      minLength: 1,
      maxLength: 1000,
      description:
        "The file's path inside the folder it is uploaded from (guides/install/README.md): the upload path becomes <section>/<path>, as for a ZIP entry. Default: the file name. '..' and '.' segments are dropped.",
    },
  },
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

export function uploadRoutes(deps: UploadRouteDeps) {
  const { knowledge } = deps;
  const options = (body: { section: string; collection: string; skip_duplicates: boolean }) => ({
    section: body.section,
    collection: body.collection,
    skipDuplicates: body.skip_duplicates,
  });

  const onlyFile = async (files: UploadedFile[], path?: string) => {
    const file = files.find((candidate) => candidate.field === 'file')!;
    return { fileName: file.fileName, bytes: await file.read(), ...(path ? { path } : {}) };
  };

  return [
    defineRoute({
      method: 'post',
      path: '/upload',
      operationId: 'uploadDocument',
      summary: 'Upload a file: parse, chunk, embed and store it',
      description:
        'Answers when the document is stored and searchable. An unsupported or broken file answers 200 with success false and the reason in error; nothing is stored. A duplicate (same upload path <section>/<path or file name>, or same text) is skipped unless skip_duplicates is false.',
      tags: ['Upload'],
      readAfterWrite: READ_AFTER_INGEST,
      body: {
        contentType: 'multipart/form-data',
        files: { file: { required: true, multiple: false, description: 'The document' } },
        schema: singleFileFields,
      },
      responses: {
        200: { description: 'Ingestion result', schema: ingestionSchema },
        413: { description: 'Too large', schema: errorSchema },
        ...errorResponses,
      },
      async handle({ body, files, caller, signal }) {
        const { result, position } = await knowledge.upload(
          await onlyFile(files, body.path),
          options(body),
          caller,
          signal,
        );
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
        schema: singleFileFields,
      },
      responses: {
        202: { description: 'The task', schema: taskCreatedSchema },
        413: { description: 'Too large', schema: errorSchema },
        415: { description: 'Unsupported file type', schema: errorSchema },
        ...errorResponses,
      },
      async handle({ body, files, caller }) {
        const started = await knowledge.startUpload(await onlyFile(files, body.path), options(body), caller);
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
              successful: {
                type: 'integer',
                description: 'Files whose result has success true: stored, or skipped as a duplicate',
              },
              duplicates: {
                type: 'integer',
                description: 'Files whose result has is_duplicate true (counted in successful too)',
              },
              failed: { type: 'integer' },
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
        const { result, position } = await knowledge.uploadMany(
          uploads.map((file) => async () => ({ fileName: file.fileName, bytes: await file.read() })),
          options(body),
          caller,
          signal,
        );
        return { body: result, position };
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
        try {
          const { result, position } = await knowledge.uploadArchive(
            archive.bytes,
            options(body),
            caller,
            signal,
          );
          return { body: result, position };
        } catch (error) {
          if (!(error instanceof ZipUploadError)) throw error;
          const tooLarge = /limit|entries/.test(error.message);
          throw new HttpError(
            tooLarge ? 413 : 422,
            tooLarge ? 'archive_too_large' : 'invalid_archive',
            error.message,
          );
        }
      },
    }),
  ];
}
