/**
 * The one document model every parser produces, whatever the format.
 *
 * Parsers turn bytes into a `ParsedDocument`; cleaning, chunking, `/parse*`, ingestion and chat
 * attachments all consume it. Page numbers are 1-based. Formats without pages put everything on
 * page 1 unless the document itself marks page breaks (form feeds, explicit DOCX page breaks);
 * PPTX/ODP slides and XLSX/ODS sheets are pages.
 */

/** Extensions the parsers accept, with the leading dot, lower case. */
export const SUPPORTED_EXTENSIONS = [
  '.txt',
  '.md',
  '.markdown',
  '.rst',
  '.pdf',
  '.docx',
  '.pptx',
  '.html',
  '.htm',
  '.json',
  '.csv',
  '.xlsx',
  '.odt',
  '.ods',
  '.odp',
  '.png',
  '.jpg',
  '.jpeg',
  '.tiff',
  '.tif',
  '.bmp',
] as const;

export type Extension = (typeof SUPPORTED_EXTENSIONS)[number];

export function isSupportedExtension(value: string): value is Extension {
  return (SUPPORTED_EXTENSIONS as readonly string[]).includes(value);
}

export interface DocumentMetadata {
  /** The document's own title, else its first heading, else the file name without extension. */
  title: string;
  author: string | null;
  /** Number of pages (slides for PPTX/ODP, sheets for XLSX/ODS, 1 for formats without pages). */
  numPages: number;
  /** Dominant ISO 639-1 language of the text; null until detected or when there is too little text. */
  language: string | null;
  /** Further facts the format carries (subject, created, modified, sheet names…), never required. */
  extra: Record<string, string | number | boolean>;
}

export interface Table {
  /** 0-based position among the document's tables. */
  index: number;
  pageNumber: number;
  /** Cell text, row-major. Every row has the same number of cells; row 0 is the header when `hasHeader`. */
  cells: string[][];
  hasHeader: boolean;
  /** A caption or sheet name when the format gives one. */
  caption: string | null;
}

/** `decoration`: a badge or a logo (READMEs' shields, a project's logo): counted, never chunk text. */
export type ImageKind = 'chart' | 'photo' | 'diagram' | 'text' | 'decoration' | 'unknown';

export interface Image {
  /** 0-based position among the document's images. */
  index: number;
  pageNumber: number;
  /** What the Describer said; empty until described. */
  description: string;
  /** Image format as sharp names it (png, jpeg, tiff…), when known. */
  format: string | null;
  width: number | null;
  height: number | null;
  /** Alternative text carried by the document itself (HTML alt, DOCX descr). */
  altText: string | null;
  /** Text found by OCR, when OCR ran on it. */
  ocrText: string | null;
  kind: ImageKind;
  /** Encoded image bytes, kept only until the image is described; never sent to clients. */
  data: Uint8Array | null;
}

export type Block =
  | { type: 'heading'; text: string; level: number; page: number }
  | { type: 'paragraph'; text: string; page: number; preformatted?: boolean }
  | { type: 'list'; items: string[]; ordered: boolean; page: number }
  | { type: 'table'; table: Table; page: number }
  | { type: 'image'; image: Image; page: number };

export type OcrState =
  /** The page had a text layer; OCR was not needed. */
  | 'not_needed'
  /** The page has no text layer and OCR was not requested: it has no text. */
  | 'skipped'
  | 'applied'
  | 'failed';

export interface Page {
  number: number;
  /** False for a scanned page (an image without a text layer). */
  hasTextLayer: boolean;
  ocr: OcrState;
  /** Human-readable remark, e.g. "page 3 has no text layer; set enable_ocr to read it". */
  note: string | null;
}

export interface ParsedDocument {
  format: Extension;
  /** File name as the client sent it (no directories). */
  sourceFile: string;
  metadata: DocumentMetadata;
  pages: Page[];
  /** Content in reading order. */
  blocks: Block[];
  /** Non-fatal problems met while parsing (an unreadable image, a skipped embedded object…). */
  warnings: string[];
}

/** Incremental parsing output: metadata first (as soon as known), then pages in order. */
export type ParseProgress =
  | { type: 'metadata'; metadata: DocumentMetadata; totalPages: number }
  | { type: 'page'; page: Page; blocks: Block[]; totalPages: number; warnings?: string[] };

/** Gives tables and images their 0-based `index` in reading order, once all blocks are known. */
export function numberBlocks(blocks: Block[]): void {
  let tableIndex = 0;
  let imageIndex = 0;
  for (const block of blocks) {
    if (block.type === 'table') block.table.index = tableIndex++;
    else if (block.type === 'image') block.image.index = imageIndex++;
  }
}

export function tables(document: ParsedDocument): Table[] {
  return document.blocks.flatMap((block) => (block.type === 'table' ? [block.table] : []));
}

export function images(document: ParsedDocument): Image[] {
  return document.blocks.flatMap((block) => (block.type === 'image' ? [block.image] : []));
}
