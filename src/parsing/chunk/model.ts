/**
 * Chunks: the pieces of a document that are embedded, retrieved and shown as sources. camelCase here;
 * the HTTP layer maps them to the spec's snake_case (`chunk_id`, `section_path` joined with " > "…).
 */
import type { Image, Table } from '../model.js';

export type ChunkingMode = 'auto' | 'semantic' | 'page' | 'paragraph' | 'disabled';

/** The strategy actually applied: `auto` always resolves to one of these. */
export type ChunkingStrategy = Exclude<ChunkingMode, 'auto'>;

export interface Chunk {
  /** `${documentId}:${chunkIndex}` — the same bytes chunked with the same options give the same ids. */
  chunkId: string;
  /**
   * The text of the blocks the chunk holds, separated by blank lines: headings as `#` lines, lists as
   * `-`/`1.` lines, tables as Markdown, images as `[Image p.N: …]`. A continuation does not repeat
   * its section's heading (`sectionPath` and `heading` carry it).
   */
  content: string;
  /** Headings enclosing the chunk, outermost first ([] before the first heading). */
  sectionPath: string[];
  /** Innermost heading of `sectionPath`; '' when there is none. */
  heading: string;
  /** Level of `heading`; 0 when there is none. */
  headingLevel: number;
  pageStart: number;
  pageEnd: number;
  /** Tables whose blocks the chunk holds; a table split by rows appears as its part (header row repeated). */
  tables: Table[];
  /** Images whose blocks the chunk holds (without their bytes). */
  images: Image[];
  chunkIndex: number;
  /**
   * Number of chunks of the document. A chunk sent incrementally before the end carries the number
   * of chunks known when it was sent (a running count that never decreases, at least `chunkIndex + 1`);
   * the chunks sent at the end, and the final stats, carry the exact total.
   */
  totalChunks: number;
  wordCount: number;
  /**
   * Id of the section the chunk belongs to — `${documentId}:s${n}` for the document's n-th heading
   * (0-based), i.e. the innermost heading of `sectionPath` — shared by every chunk of that section so
   * a retriever can fetch its siblings; null before the first heading.
   */
  parentSectionId: string | null;
  /** ISO 639-1 language of the chunk; else the document's; else "unknown". */
  language: string;
  /**
   * True when the chunk continues what the previous chunk started: the same section (semantic), the
   * same page (page), a paragraph, list or table split across chunks (paragraph), or the document
   * (disabled, when it exceeds the maximum).
   */
  isContinuation: boolean;
}

export interface ChunkingStats {
  strategyUsed: ChunkingStrategy;
  totalChunks: number;
  /** Sections delimited by headings: one per heading, plus one for text before the first heading. */
  sectionsFound: number;
  pagesProcessed: number;
  /** Words of the document as rendered in chunks, counting a repeated table header once. */
  totalWords: number;
  /** Heading level → number of headings at that level. */
  headingDistribution: Record<number, number>;
  /** Mean `wordCount` of the chunks (0 without chunks), rounded to one decimal. */
  avgChunkWords: number;
}

export interface ChunkingOptions {
  mode: ChunkingMode;
  /** Size chunks are packed towards (`target_chunk_words`). */
  targetWords: number;
  /** Hard limit: no chunk has more words (`max_chunk_words`). */
  maxWords: number;
  /** Prefix of chunk and section ids. */
  documentId: string;
}

export const DEFAULT_TARGET_WORDS = 500;
export const DEFAULT_MAX_WORDS = 1500;

export interface ChunkingResult {
  chunks: Chunk[];
  stats: ChunkingStats;
}
