import { createHash } from 'node:crypto';
import type { Chunk, ChunkingMode, ChunkingStats } from './chunk/model.js';
import { chunkDocument } from './chunk/chunkDocument.js';
import { createIncrementalChunker } from './chunk/incremental.js';
import { cleanBlocks, cleanDocument, type CleanOptions } from './clean/cleanDocument.js';
import { detectDocumentLanguage } from './clean/language.js';
import type { Describer, OcrEngine, ParseContext, ParseLimits, ParseOptions } from './context.js';
import { describeBlocks, describeImages } from './describe/describeImages.js';
import { detectFormat } from './detect/detectFormat.js';
import { ParseError } from './errors.js';
import { FORMATS, INCREMENTAL_FORMATS } from './formats.js';
import type { Block, DocumentMetadata, Extension, Page, ParsedDocument } from './model.js';
import { renderFullText } from './render/renderFullText.js';
import { buildLlmReady } from './summarize/llmReady.js';
import type { Summarizer } from './summarize/summarizer.js';
import { createChannel } from './worker/channel.js';
import { contentHashOf } from '../text/contentHash.js';

/** Models and engines a job may call; created once per process (or worker thread). */
export interface ParseServices {
  ocr: OcrEngine;
  describer: Describer;
  summarizer: Summarizer;
}

export interface ChunkingRequest {
  mode: ChunkingMode;
  targetWords: number;
  maxWords: number;
}

interface JobBase {
  fileName: string;
  bytes: Uint8Array;
  options: ParseOptions;
  cleaning: CleanOptions;
  limits: ParseLimits;
}

/** What the `/parse*` endpoints ask of the pipeline. */
export type ParseJob =
  | (JobBase & { kind: 'parse'; includeTables: boolean; includeImages: boolean; summarize: boolean })
  | (JobBase & {
      kind: 'sections';
      chunking: ChunkingRequest;
      includeFullText: boolean;
      /**
       * For storing the chunks, not showing the document: the result's document comes without its
       * pages and blocks, and carries the text's content hash (`contentHashOf`) instead of the
       * text, so that a large document crosses to the main thread once, as its chunks.
       */
      forStorage?: boolean;
    })
  | (JobBase & { kind: 'stream'; chunking: ChunkingRequest })
  | (JobBase & { kind: 'incremental'; chunking: ChunkingRequest });

export interface ParseResult {
  document: ParsedDocument;
  /** Headings, paragraphs and lists, cleaned: the document's prose. */
  cleanedText: string;
  fullText: string;
  llmReady: string;
}

export interface SectionsResult {
  document: ParsedDocument;
  chunks: Chunk[];
  stats: ChunkingStats;
  fullText: string | null;
  /** The full text's `contentHashOf`, for a job `forStorage`. */
  contentHash?: string;
}

/** The stages of turning bytes into chunks, as a sections job reports them. */
export type ParseStage = 'detect' | 'parse' | 'clean' | 'chunk';

/** Told of the stages and pages of `parseDocument` as they end. */
export interface ParseObserver {
  stage(stage: ParseStage, ms: number): void;
  page(page: number, totalPages: number): void;
}

/** What a job yields, in order; the last item is `result` (parse, sections) or `done` (streams). */
export type ParseJobEvent =
  /** A sections job finished a stage, which took `ms`. */
  | { type: 'stage'; stage: ParseStage; ms: number }
  /** A sections job parsed a page of a paged document. */
  | { type: 'pageParsed'; page: number; totalPages: number }
  | { type: 'status'; status: 'parsing' | 'processing' }
  | { type: 'metadata'; format: Extension; metadata: DocumentMetadata; totalPages: number }
  | { type: 'progress'; page: number; totalPages: number; pageInfo: Page }
  /** `totalFinal`: whether `chunk.totalChunks` is the document's total, or the running count so far. */
  | { type: 'chunk'; chunk: Chunk; totalFinal: boolean }
  | { type: 'stats'; stats: ChunkingStats }
  | { type: 'done' }
  | { type: 'result'; result: ParseResult | SectionsResult };

function context(
  job: JobBase,
  services: ParseServices,
  signal: AbortSignal,
  observer?: ParseObserver,
): ParseContext {
  return {
    fileName: job.fileName,
    options: job.options,
    limits: job.limits,
    signal,
    ocr: services.ocr,
    describer: services.describer,
    ...(observer ? { onPage: (page: number, total: number) => observer.page(page, total) } : {}),
  };
}

/** Chunk ids derive from the content, so the same bytes always give the same ids. */
function documentId(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

/** Detects the format, parses, describes images, and cleans: the document every endpoint starts from. */
export async function parseDocument(
  job: JobBase,
  services: ParseServices,
  signal: AbortSignal,
  observer?: ParseObserver,
): Promise<ParsedDocument> {
  const ctx = context(job, services, signal, observer);
  if (job.bytes.byteLength > job.limits.maxInputBytes) {
    throw new ParseError(
      'too_large',
      `The file is ${job.bytes.byteLength} bytes; the limit is ${job.limits.maxInputBytes}`,
    );
  }
  let started = performance.now();
  const ended = (stage: ParseStage): void => {
    const now = performance.now();
    observer?.stage(stage, now - started);
    started = now;
  };
  const format = await detectFormat(job.bytes, job.fileName);
  ended('detect');
  const parse = await FORMATS[format].load();
  const parsed = await parse(job.bytes, ctx);
  const described = await describeImages(parsed, ctx);
  ended('parse');
  const cleaned = cleanDocument(described, job.cleaning);
  ended('clean');
  return cleaned;
}

function prose(document: ParsedDocument): string {
  return renderFullText(document, { includeTables: false, includeImages: false });
}

/**
 * Runs one job to the end, yielding its events. The same generator runs inline (tests) and inside
 * the parse worker threads (the product), so both behave alike.
 */
export async function* runParseJob(
  job: ParseJob,
  services: ParseServices,
  signal: AbortSignal,
): AsyncGenerator<ParseJobEvent> {
  switch (job.kind) {
    case 'parse': {
      const document = await parseDocument(job, services, signal);
      const fullText = renderFullText(document, {
        includeTables: job.includeTables,
        includeImages: job.includeImages,
      });
      const cleanedText = prose(document);
      const llmReady = await buildLlmReady(document, {
        summarize: job.summarize,
        summarizer: services.summarizer,
        signal,
        inputBytes: job.bytes.byteLength,
        contentChars: cleanedText.length,
      });
      yield { type: 'result', result: { document, cleanedText, fullText, llmReady } };
      return;
    }
    case 'sections': {
      // The stages and pages are yielded as they end, while the document is parsed.
      const observed = createChannel<ParseJobEvent>();
      const parsing = parseDocument(job, services, signal, {
        stage: (stage, ms) => observed.push({ type: 'stage', stage, ms }),
        page: (page, totalPages) => observed.push({ type: 'pageParsed', page, totalPages }),
      });
      void parsing.then(
        () => observed.end(),
        () => observed.end(),
      );
      yield* observed;
      const document = await parsing;
      const started = performance.now();
      const { chunks, stats } = chunkDocument(document, {
        ...job.chunking,
        documentId: documentId(job.bytes),
      });
      const wholeText =
        job.includeFullText || job.forStorage
          ? renderFullText(document, { includeTables: true, includeImages: true })
          : null;
      yield { type: 'stage', stage: 'chunk', ms: performance.now() - started };
      if (job.forStorage) {
        const contentHash = contentHashOf(wholeText ?? '');
        const metadataOnly = { ...document, pages: [], blocks: [] };
        const fullText = job.includeFullText ? wholeText : null;
        yield { type: 'result', result: { document: metadataOnly, chunks, stats, fullText, contentHash } };
        return;
      }
      yield { type: 'result', result: { document, chunks, stats, fullText: wholeText } };
      return;
    }
    case 'stream': {
      yield { type: 'status', status: 'parsing' };
      const document = await parseDocument(job, services, signal);
      yield { type: 'status', status: 'processing' };
      yield {
        type: 'metadata',
        format: document.format,
        metadata: document.metadata,
        totalPages: document.metadata.numPages,
      };
      const { chunks, stats } = chunkDocument(document, {
        ...job.chunking,
        documentId: documentId(job.bytes),
      });
      for (const chunk of chunks) yield { type: 'chunk', chunk, totalFinal: true };
      yield { type: 'stats', stats };
      yield { type: 'done' };
      return;
    }
    case 'incremental':
      yield* runIncremental(job, services, signal);
  }
}

async function* runIncremental(
  job: Extract<ParseJob, { kind: 'incremental' }>,
  services: ParseServices,
  signal: AbortSignal,
): AsyncGenerator<ParseJobEvent> {
  const ctx = context(job, services, signal);
  const format = await detectFormat(job.bytes, job.fileName);
  if (!INCREMENTAL_FORMATS.includes(format)) {
    throw new ParseError(
      'unsupported_format',
      `Incremental parsing takes ${INCREMENTAL_FORMATS.join(' ')}; got ${format}`,
    );
  }
  const chunker = createIncrementalChunker({ ...job.chunking, documentId: documentId(job.bytes) });
  const pages = format === '.pdf' ? pdfPages(job.bytes, ctx) : wholeDocumentPages(job, ctx, format);
  let emittedMetadata = false;
  for await (const item of pages) {
    if (item.type === 'metadata') {
      emittedMetadata = true;
      yield { type: 'metadata', format, metadata: item.metadata, totalPages: item.totalPages };
      continue;
    }
    // Pages without images skip the describing stage.
    const blocks = item.blocks.some((block) => block.type === 'image')
      ? (await describeBlocks(item.blocks, ctx)).blocks
      : item.blocks;
    yield { type: 'progress', page: item.page.number, totalPages: item.totalPages, pageInfo: item.page };
    for (const chunk of chunker.push(cleanBlocks(blocks, job.cleaning)))
      yield { type: 'chunk', chunk, totalFinal: false };
  }
  if (!emittedMetadata) throw new ParseError('empty_document', 'The document has no pages');
  const { chunks, stats } = chunker.finish();
  for (const chunk of chunks) yield { type: 'chunk', chunk, totalFinal: true };
  yield { type: 'stats', stats };
  yield { type: 'done' };
}

type PageItem =
  | { type: 'metadata'; metadata: DocumentMetadata; totalPages: number }
  | { type: 'page'; page: Page; blocks: Block[]; totalPages: number };

async function* pdfPages(bytes: Uint8Array, ctx: ParseContext): AsyncGenerator<PageItem> {
  const { parsePdfIncremental } = await import('./pdf/index.js');
  yield* parsePdfIncremental(bytes, ctx);
}

/** Formats without a page-by-page parser are parsed whole (they are fast), then sent page by page. */
async function* wholeDocumentPages(
  job: JobBase,
  ctx: ParseContext,
  format: Extension,
): AsyncGenerator<PageItem> {
  const parse = await FORMATS[format].load();
  const document = await parse(job.bytes, ctx);
  const language = detectDocumentLanguage(document);
  yield { type: 'metadata', metadata: { ...document.metadata, language }, totalPages: document.pages.length };
  const byPage = new Map<number, Block[]>();
  for (const block of document.blocks) {
    const list = byPage.get(block.page);
    if (list) list.push(block);
    else byPage.set(block.page, [block]);
  }
  for (const page of document.pages) {
    yield { type: 'page', page, blocks: byPage.get(page.number) ?? [], totalPages: document.pages.length };
  }
}
