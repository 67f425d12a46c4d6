import type { ImageKind } from './model.js';

/** Limits every parser enforces; exceeding one is a `ParseError` (`too_large` / `too_complex`). */
export interface ParseLimits {
  /** Largest input accepted, in bytes. */
  maxInputBytes: number;
  /** Largest total uncompressed size of a ZIP-based document (DOCX, PPTX, XLSX) or of a PDF's Flate streams. */
  maxUncompressedBytes: number;
  /** Largest number of entries in a ZIP-based document. */
  maxZipEntries: number;
  /** Largest uncompressed/compressed ratio of one ZIP entry or PDF stream (decompression bombs). */
  maxCompressionRatio: number;
  /** Deepest nesting of JSON values or HTML elements. */
  maxNestingDepth: number;
  /** Most pages (PDF pages, slides, sheets). */
  maxPages: number;
  /** Most table cells in one document (XLSX, CSV). */
  maxCells: number;
  /** Most rows in one table read row by row (a CSV file, an XLSX sheet). */
  maxRows: number;
  /** Most fields in one row of a CSV file or an XLSX sheet (columns). */
  maxRowFields: number;
  /** Longest field of a CSV file or cell of an XLSX sheet, in characters. */
  maxFieldChars: number;
  /** Most characters of extracted text. */
  maxTextChars: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  maxInputBytes: 100 * 1024 * 1024,
  maxUncompressedBytes: 512 * 1024 * 1024,
  maxZipEntries: 20_000,
  maxCompressionRatio: 200,
  maxNestingDepth: 200,
  maxPages: 5_000,
  maxCells: 5_000_000,
  // Excel's own limits: a table no spreadsheet can hold is not one to read row by row either.
  maxRows: 1_048_576,
  maxRowFields: 16_384,
  maxFieldChars: 32_767,
  maxTextChars: 50_000_000,
};

export interface ParseOptions {
  /** OCR pages without a text layer (images are always OCR'd). */
  enableOcr: boolean;
  /** Ask the Describer for image descriptions (the local describer when no vision model is set). */
  enableImageDescription: boolean;
  /** `accurate` may spend more time on table structure; `fast` uses cheap heuristics. */
  tableMode: 'fast' | 'accurate';
}

export const DEFAULT_PARSE_OPTIONS: ParseOptions = {
  enableOcr: false,
  enableImageDescription: true,
  tableMode: 'fast',
};

export interface OcrResult {
  text: string;
  /** Mean word confidence 0–100. */
  confidence: number;
}

/** Optical character recognition. */
export interface OcrEngine {
  /** Recognise text in an encoded image (PNG, JPEG, TIFF, BMP). Rejects with `ParseError('aborted')` on abort. */
  recognize(
    image: Uint8Array,
    options: { languages: readonly OcrLanguage[]; signal: AbortSignal },
  ): Promise<OcrResult>;
  /** Free workers. */
  close(): Promise<void>;
}

/**
 * Every language Archivist reads by OCR (npm packages `@tesseract.js-data/<code>` ship the models).
 * Images and scanned pages are read in all of them: the set is small and a page may mix them.
 */
export const OCR_LANGUAGES = ['eng', 'ara'] as const;

export type OcrLanguage = (typeof OCR_LANGUAGES)[number];

export interface ImageToDescribe {
  data: Uint8Array;
  format: string | null;
  width: number | null;
  height: number | null;
  /** Text around the image in the document (a caption, the preceding heading), to help a model. */
  context: string | null;
  /** Text OCR already found in the image (so a describer need not read it again); null when OCR did not run. */
  ocrText?: string | null;
}

export interface ImageDescription {
  /** One or a few sentences a reader (and a retriever) can use in place of the image. */
  text: string;
  kind: ImageKind;
  ocrText: string | null;
}

/** Turns an image into text. The local default computes what it can; a vision model is used when configured. */
export interface Describer {
  describe(image: ImageToDescribe, signal: AbortSignal): Promise<ImageDescription>;
}

/** Everything a parser may use besides the bytes. */
export interface ParseContext {
  fileName: string;
  options: ParseOptions;
  limits: ParseLimits;
  signal: AbortSignal;
  ocr: OcrEngine;
  describer: Describer;
  /** Told of each page a paged parser (PDF) has finished: how a long parse shows its progress. */
  onPage?(page: number, totalPages: number): void;
}
