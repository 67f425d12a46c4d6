import type { Chunk, ChunkingStats } from '../../parsing/chunk/model.js';
import type { DocumentMetadata, Image, ParsedDocument, Table } from '../../parsing/model.js';
import { tables as tablesOf, images as imagesOf } from '../../parsing/model.js';
import { tableColumnCount, tableRowCount, tableToMarkdown, tableToText } from '../../parsing/tableText.js';
import type { ParseResult, SectionsResult } from '../../parsing/job.js';

/** The spec's field names, in snake_case. */
export function metadataResource(metadata: DocumentMetadata): Record<string, unknown> {
  return {
    num_pages: metadata.numPages,
    title: metadata.title,
    author: metadata.author,
    language: metadata.language,
  };
}

export function tableResource(table: Table): Record<string, unknown> {
  return {
    index: table.index,
    page_number: table.pageNumber,
    rows: tableRowCount(table),
    cols: tableColumnCount(table),
    content: tableToText(table),
    markdown: tableToMarkdown(table),
  };
}

export function imageResource(image: Image): Record<string, unknown> {
  return { index: image.index, page_number: image.pageNumber, description: image.description };
}

export function chunkResource(chunk: Chunk): Record<string, unknown> {
  return {
    chunk_id: chunk.chunkId,
    content: chunk.content,
    section_path: chunk.sectionPath.join(' > '),
    heading: chunk.heading,
    heading_level: chunk.headingLevel,
    page_start: chunk.pageStart,
    page_end: chunk.pageEnd,
    tables: chunk.tables.map(tableResource),
    images: chunk.images.map(imageResource),
    chunk_index: chunk.chunkIndex,
    total_chunks: chunk.totalChunks,
    word_count: chunk.wordCount,
    parent_section_id: chunk.parentSectionId,
    language: chunk.language,
    is_continuation: chunk.isContinuation,
  };
}

export function statsResource(stats: ChunkingStats): Record<string, unknown> {
  return {
    strategy_used: stats.strategyUsed,
    total_chunks: stats.totalChunks,
    sections_found: stats.sectionsFound,
    pages_processed: stats.pagesProcessed,
    total_words: stats.totalWords,
    heading_distribution: Object.fromEntries(
      Object.entries(stats.headingDistribution).map(([level, count]) => [String(level), count]),
    ),
    avg_chunk_words: stats.avgChunkWords,
  };
}

/** Per-page facts beyond the spec: which pages had no text layer, and what OCR did about it. */
function pagesResource(document: ParsedDocument): Array<Record<string, unknown>> {
  return document.pages.map((page) => ({
    page_number: page.number,
    has_text_layer: page.hasTextLayer,
    ocr: page.ocr,
    note: page.note,
  }));
}

export function parseResultResource(result: ParseResult): Record<string, unknown> {
  const { document } = result;
  const tables = tablesOf(document);
  const images = imagesOf(document);
  return {
    success: true,
    source_file: document.sourceFile,
    format: document.format,
    metadata: metadataResource(document.metadata),
    content: { cleaned_text: result.cleanedText, char_count: result.cleanedText.length },
    tables: tables.map(tableResource),
    tables_count: tables.length,
    images: images.map(imageResource),
    images_count: images.length,
    full_text: result.fullText,
    llm_ready: result.llmReady,
    pages: pagesResource(document),
    warnings: document.warnings,
  };
}

export function sectionsResultResource(result: SectionsResult): Record<string, unknown> {
  return {
    success: true,
    source_file: result.document.sourceFile,
    format: result.document.format,
    metadata: metadataResource(result.document.metadata),
    chunks: result.chunks.map(chunkResource),
    chunking_stats: statsResource(result.stats),
    full_text: result.fullText,
    pages: pagesResource(result.document),
    warnings: result.document.warnings,
  };
}

const table = {
  type: 'object',
  required: ['index', 'page_number', 'rows', 'cols', 'content', 'markdown'],
  properties: {
    index: { type: 'integer' },
    page_number: { type: 'integer' },
    rows: { type: 'integer' },
    cols: { type: 'integer' },
    content: { type: 'string', description: 'Plain text, one line per row, cells separated by " | "' },
    markdown: { type: 'string' },
  },
} as const;
const image = {
  type: 'object',
  required: ['index', 'page_number', 'description'],
  properties: {
    index: { type: 'integer' },
    page_number: { type: 'integer' },
    description: { type: 'string' },
  },
} as const;
const metadata = {
  type: 'object',
  required: ['num_pages', 'title', 'author'],
  properties: {
    num_pages: { type: 'integer' },
    title: { type: 'string' },
    author: { type: ['string', 'null'] },
    language: { type: ['string', 'null'], description: 'Dominant ISO 639-1 language, when it can be told' },
  },
} as const;
const pages = {
  type: 'array',
  description:
    'Per page: whether it had a text layer, and what OCR did (not_needed, skipped, applied, failed)',
  items: {
    type: 'object',
    properties: {
      page_number: { type: 'integer' },
      has_text_layer: { type: 'boolean' },
      ocr: { type: 'string', enum: ['not_needed', 'skipped', 'applied', 'failed'] },
      note: { type: ['string', 'null'] },
    },
  },
} as const;
const warnings = {
  type: 'array',
  items: { type: 'string' },
  description: 'Problems that did not stop parsing',
} as const;

export const chunkSchema = {
  type: 'object',
  required: [
    'chunk_id',
    'content',
    'section_path',
    'heading',
    'heading_level',
    'page_start',
    'page_end',
    'tables',
    'images',
    'chunk_index',
    'total_chunks',
    'word_count',
    'parent_section_id',
    'language',
    'is_continuation',
  ],
  properties: {
    chunk_id: { type: 'string' },
    content: { type: 'string' },
    section_path: { type: 'string', description: 'Headings enclosing the chunk, joined with " > "' },
    heading: { type: 'string' },
    heading_level: { type: 'integer' },
    page_start: { type: 'integer' },
    page_end: { type: 'integer' },
    tables: { type: 'array', items: table },
    images: { type: 'array', items: image },
    chunk_index: { type: 'integer' },
    total_chunks: {
      type: ['integer', 'null'],
      description: 'null in the incremental stream, where the total is not known yet',
    },
    word_count: { type: 'integer' },
    parent_section_id: { type: ['string', 'null'] },
    language: { type: 'string' },
    is_continuation: { type: 'boolean' },
  },
} as const;

export const statsSchema = {
  type: 'object',
  required: [
    'strategy_used',
    'total_chunks',
    'sections_found',
    'pages_processed',
    'total_words',
    'heading_distribution',
    'avg_chunk_words',
  ],
  properties: {
    strategy_used: { type: 'string', enum: ['semantic', 'page', 'paragraph', 'disabled'] },
    total_chunks: { type: 'integer' },
    sections_found: { type: 'integer' },
    pages_processed: { type: 'integer' },
    total_words: { type: 'integer' },
    heading_distribution: { type: 'object', additionalProperties: { type: 'integer' } },
    avg_chunk_words: { type: 'number' },
  },
} as const;

export const parseResultSchema = {
  type: 'object',
  required: [
    'success',
    'source_file',
    'format',
    'metadata',
    'content',
    'tables',
    'tables_count',
    'images',
    'images_count',
    'full_text',
    'llm_ready',
  ],
  properties: {
    success: { type: 'boolean' },
    source_file: { type: 'string' },
    format: { type: 'string', description: 'Extension with the dot' },
    metadata,
    content: {
      type: 'object',
      required: ['cleaned_text', 'char_count'],
      properties: { cleaned_text: { type: 'string' }, char_count: { type: 'integer' } },
    },
    tables: { type: 'array', items: table },
    tables_count: { type: 'integer' },
    images: { type: 'array', items: image },
    images_count: { type: 'integer' },
    full_text: { type: 'string' },
    llm_ready: { type: 'string' },
    pages,
    warnings,
  },
} as const;

export const sectionsResultSchema = {
  type: 'object',
  required: ['success', 'source_file', 'format', 'metadata', 'chunks', 'chunking_stats', 'full_text'],
  properties: {
    success: { type: 'boolean' },
    source_file: { type: 'string' },
    format: { type: 'string' },
    metadata,
    chunks: { type: 'array', items: chunkSchema },
    chunking_stats: statsSchema,
    full_text: { type: ['string', 'null'] },
    pages,
    warnings,
  },
} as const;
