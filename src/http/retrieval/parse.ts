import type {
  ChunkingRequest,
  ParseJob,
  ParseJobEvent,
  ParseResult,
  SectionsResult,
} from '../../parsing/job.js';
import { DEFAULT_PARSE_LIMITS, type ParseLimits, type ParseOptions } from '../../parsing/context.js';
import { extensionOf } from '../../parsing/detect/detectFormat.js';
import { ParseError } from '../../parsing/errors.js';
import { FORMATS, INCREMENTAL_FORMATS } from '../../parsing/formats.js';
import { SUPPORTED_EXTENSIONS } from '../../parsing/model.js';
import type { ParsePool } from '../../parsing/worker/parsePool.js';
import { HttpError } from '../httpError.js';
import type { RouteRequest, UploadedFile } from '../route.js';
import { defineRoute } from '../route.js';
import { openSse, pumpSse, type SseStream } from '../sse.js';
import {
  chunkResource,
  metadataResource,
  parseResultResource,
  sectionsResultResource,
  statsResource,
} from './parseResources.js';
import {
  fileErrors,
  fileField,
  incrementalFields,
  parseFields,
  parseResultSchema,
  sectionsFields,
  sectionsResultSchema,
  sseResponse,
  streamFields,
} from './parseSchemas.js';
import { errorResponses } from './schemas.js';

export interface ParseRouteDeps {
  parser: ParsePool;
  maxUploadBytes: number;
  /** How often a section stream waiting on the parser sends a comment line. */
  sseKeepAliveMs: number;
}

function chunkSizesFrom(
  body: { target_chunk_words: number; max_chunk_words: number },
  mode: ChunkingRequest['mode'],
): ChunkingRequest {
  if (body.target_chunk_words > body.max_chunk_words) {
    throw new HttpError(
      422,
      'validation_error',
      `body.target_chunk_words (${body.target_chunk_words}) must not exceed body.max_chunk_words (${body.max_chunk_words})`,
      [{ location: 'body', field: 'target_chunk_words', message: 'must not exceed max_chunk_words' }],
    );
  }
  return { mode, targetWords: body.target_chunk_words, maxWords: body.max_chunk_words };
}

export function parseRoutes(deps: ParseRouteDeps) {
  const limits: ParseLimits = { ...DEFAULT_PARSE_LIMITS, maxInputBytes: deps.maxUploadBytes };

  async function upload(files: UploadedFile[]): Promise<{ fileName: string; bytes: Uint8Array }> {
    const file = files.find((candidate) => candidate.field === 'file')!;
    return { fileName: file.fileName, bytes: await file.read() };
  }

  /** What every job shares: the upload, parse options, cleaning flags and limits. */
  async function jobInput(
    files: UploadedFile[],
    options: ParseOptions,
    fields: { remove_urls: boolean; normalize_arabic: boolean },
  ): Promise<Pick<ParseJob, 'fileName' | 'bytes' | 'options' | 'cleaning' | 'limits'>> {
    return {
      ...(await upload(files)),
      options,
      cleaning: { removeUrls: fields.remove_urls, normalizeArabic: fields.normalize_arabic },
      limits,
    };
  }

  /** Parse options from the form; /parse names the image-description flag differently from the others. */
  function parseOptions(
    fields: { enable_ocr: boolean; table_mode: ParseOptions['tableMode'] },
    describeImages: boolean,
  ): ParseOptions {
    return {
      enableOcr: fields.enable_ocr,
      enableImageDescription: describeImages,
      tableMode: fields.table_mode,
    };
  }

  async function runToResult<T extends ParseResult | SectionsResult>(
    job: ParseJob,
    signal: AbortSignal,
  ): Promise<T> {
    let result: T | null = null;
    for await (const event of deps.parser.run(job, signal))
      if (event.type === 'result') result = event.result as T;
    if (!result) throw new Error('the parse job ended without a result');
    return result;
  }

  /** Streams a job's events as `data:` lines; a failure becomes an `error` event, then `done`. */
  async function stream(
    request: RouteRequest<unknown, unknown, unknown>,
    job: ParseJob,
    chunkType: 'section' | 'chunk',
  ): Promise<void> {
    const run = deps.parser.run(job, request.signal);
    // A refusal before parsing starts (over the memory budget, a full queue) is an ordinary error
    // response with its status, not a stream: a client can only read a status before the stream.
    await run.started;
    const sse: SseStream = openSse(request.koa, request.signal, deps.sseKeepAliveMs);
    const send = (data: Record<string, unknown>): void => sse.send({ data });
    const toData = (event: ParseJobEvent): Record<string, unknown> | null => {
      switch (event.type) {
        case 'status':
          return {
            type: 'status',
            status: event.status,
            message: event.status === 'parsing' ? 'Parsing the document' : 'Chunking the document',
          };
        case 'metadata':
          return {
            type: 'metadata',
            source_file: job.fileName,
            format: event.format,
            metadata: metadataResource(event.metadata),
            total_pages: event.totalPages,
          };
        case 'progress':
          return {
            type: 'progress',
            page: event.page,
            total_pages: event.totalPages,
            message: `page ${event.page} of ${event.totalPages}`,
            has_text_layer: event.pageInfo.hasTextLayer,
            ocr: event.pageInfo.ocr,
          };
        case 'chunk':
          return { type: chunkType, ...chunkResource(event.chunk), total_chunks_final: event.totalFinal };
        case 'stats':
          return { type: 'stats', chunking_stats: statsResource(event.stats) };
        case 'done':
          return { type: 'done' };
        case 'result':
        case 'stage':
        case 'pageParsed':
          return null;
      }
    };
    pumpSse(
      sse,
      request,
      async () => {
        for await (const event of run) {
          const data = toData(event);
          if (data) send(data);
        }
      },
      (error) => {
        send({ type: 'error', error: error.type, detail: error.message, status_code: error.status });
        send({ type: 'done' });
      },
    );
  }

  return [
    defineRoute({
      method: 'get',
      path: '/parse/formats',
      operationId: 'parseFormats',
      summary: 'File formats the parser accepts',
      tags: ['Parse'],
      responses: {
        200: {
          description: 'Extensions and what is extracted from each',
          schema: {
            type: 'object',
            required: ['formats', 'descriptions'],
            properties: {
              formats: { type: 'array', items: { type: 'string' } },
              descriptions: { type: 'object', additionalProperties: { type: 'string' } },
              incremental_formats: {
                type: 'array',
                items: { type: 'string' },
                description: 'Formats /parse/sections/incremental accepts',
              },
            },
          },
        },
        ...errorResponses,
      },
      async handle() {
        return {
          body: {
            formats: [...SUPPORTED_EXTENSIONS],
            descriptions: Object.fromEntries(
              SUPPORTED_EXTENSIONS.map((extension) => [extension, FORMATS[extension].description]),
            ),
            incremental_formats: INCREMENTAL_FORMATS,
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/parse',
      operationId: 'parse',
      summary: 'Parse a document (nothing is stored)',
      description:
        'Text, tables and images of a document, cleaned. `llm_ready` is a summary (the configured LLM, else a local extractive summary) when summarize_llm_ready is true and the file is at most 5 MB and 50,000 characters of content; otherwise the whole document as Markdown.',
      tags: ['Parse'],
      body: {
        contentType: 'multipart/form-data',
        files: fileField,
        schema: parseFields,
      },
      responses: {
        200: { description: 'The parse result', schema: parseResultSchema },
        ...errorResponses,
        ...fileErrors,
      },
      async handle({ body, files, signal }) {
        const job: ParseJob = {
          kind: 'parse',
          ...(await jobInput(files, parseOptions(body, body.enable_image_description), body)),
          includeTables: body.include_tables,
          includeImages: body.include_images,
          summarize: body.summarize_llm_ready,
        };
        return { body: parseResultResource(await runToResult<ParseResult>(job, signal)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/parse/sections',
      operationId: 'parseSections',
      summary: 'Parse and chunk a document (nothing is stored)',
      tags: ['Parse'],
      body: {
        contentType: 'multipart/form-data',
        files: fileField,
        schema: sectionsFields,
      },
      responses: {
        200: { description: 'Chunks and statistics', schema: sectionsResultSchema },
        ...errorResponses,
        ...fileErrors,
      },
      async handle({ body, files, signal }) {
        const chunking = chunkSizesFrom(body, body.chunking_mode);
        const job: ParseJob = {
          kind: 'sections',
          ...(await jobInput(files, parseOptions(body, body.enable_picture_description), body)),
          chunking,
          includeFullText: body.include_full_text,
        };
        return { body: sectionsResultResource(await runToResult<SectionsResult>(job, signal)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/parse/sections/stream',
      operationId: 'parseSectionsStream',
      summary: 'Parse, then stream the sections (SSE)',
      description:
        'The whole document is parsed first, then events are sent as `data: <JSON>` lines: `status` (parsing, processing), `metadata`, one `section` per chunk (the chunk fields plus `type`), `stats` (chunking_stats), then `done`. A failure sends `error` (error, detail, status_code) and `done`. Chunking uses auto mode with 500/1500 words.',
      tags: ['Parse'],
      body: {
        contentType: 'multipart/form-data',
        files: fileField,
        schema: streamFields,
      },
      responses: { ...sseResponse, ...errorResponses, ...fileErrors },
      async handle(request) {
        const { body, files } = request;
        const job: ParseJob = {
          kind: 'stream',
          ...(await jobInput(files, parseOptions(body, body.enable_picture_description), body)),
          chunking: { mode: 'auto', targetWords: 500, maxWords: 1500 },
        };
        await stream(request, job, 'section');
      },
    }),
    defineRoute({
      method: 'post',
      path: '/parse/sections/incremental',
      operationId: 'parseSectionsIncremental',
      summary: 'Parse page by page, streaming each chunk when ready (SSE)',
      description:
        'For .pdf .md .markdown .txt .html .htm .docx. Events as `data: <JSON>` lines: `metadata` as soon as known, `progress` after each page ("page X of Y"), `chunk` as soon as each chunk is final (the chunk fields plus `type` and `total_chunks_final`; `total_chunks` is always an integer: the chunks known so far while parsing goes on — a running count that never decreases — and the exact total, with `total_chunks_final: true`, for the chunks sent once the document is parsed), `stats`, then `done`. A failure sends `error` and `done`. Headings in PDFs are judged from the pages seen so far.',
      tags: ['Parse'],
      body: {
        contentType: 'multipart/form-data',
        files: fileField,
        schema: incrementalFields,
      },
      responses: { ...sseResponse, ...errorResponses, ...fileErrors },
      async handle(request) {
        const { body, files } = request;
        const chunking = chunkSizesFrom(body, 'auto');
        // The job checks the detected format too, but only once streaming, as an `error` event:
        // a name that says the format is wrong is refused here, with a status.
        const extension = extensionOf(files.find((file) => file.field === 'file')?.fileName ?? '');
        if (extension && !(INCREMENTAL_FORMATS as readonly string[]).includes(extension)) {
          throw new ParseError(
            'unsupported_format',
            `Incremental parsing takes ${INCREMENTAL_FORMATS.join(' ')}; got ${extension}`,
          );
        }
        const job: ParseJob = {
          kind: 'incremental',
          // The spec's incremental path is heuristic for tables and images: images get their factual
          // line (format, size, alt text) instead of OCR and description, which would delay chunks.
          ...(await jobInput(
            files,
            { enableOcr: false, enableImageDescription: false, tableMode: 'fast' },
            body,
          )),
          chunking,
        };
        await stream(request, job, 'chunk');
      },
    }),
  ];
}
