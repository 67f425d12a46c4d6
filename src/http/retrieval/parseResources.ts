import type { Chunk, ChunkingStats } from '../../parsing/chunk/model.js';
import type { DocumentMetadata, Image, ParsedDocument, Table } from '../../parsing/model.js';
import { tables as tablesOf, images as imagesOf } from '../../parsing/model.js';
import { tableColumnCount, tableRowCount, tableToMarkdown, tableToText } from '../../parsing/tableText.js';
import type { ParseResult, SectionsResult } from '../../parsing/job.js';

/** Parsing results in the API's shape (the spec's snake_case field names). */
export function metadataResource(metadata: DocumentMetadata): Record<string, unknown> {
  return {
    num_pages: metadata.numPages,
    title: metadata.title,
    author: metadata.author,
    language: metadata.language,
  };
}

function tableResource(table: Table): Record<string, unknown> {
  return {
    index: table.index,
    page_number: table.pageNumber,
    rows: tableRowCount(table),
    cols: tableColumnCount(table),
    content: tableToText(table),
    markdown: tableToMarkdown(table),
  };
}

function imageResource(image: Image): Record<string, unknown> {
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
