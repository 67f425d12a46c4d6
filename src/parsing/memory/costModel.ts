import type { Extension } from '../model.js';

const MB = 1024 * 1024;

/**
 * What parsing costs in memory, per unit of what can be known before parsing: bytes of the file,
 * bytes its ZIP parts declare once inflated, pages, pixels. Each figure is the highest growth of the
 * server's RSS per unit measured on that kind of input (`npm run bench -- parseMemory` and the
 * calibration notes in docs/benchmarks.md), rounded up, so the estimate is an upper bound and the
 * admission budget holds: the cost is dominated by the document model (one JavaScript string and
 * array slot per cell, word or run), its chunks and the response, not by the file.
 */
export interface CostModel {
  /** Every job: worker-side working set, the job's messages, the response's buffers. */
  fixedBytes: number;
  /** Copies of the input alive while it is parsed: the caller's bytes and the worker's own copy. */
  inputCopies: number;
  /** Text formats, per byte of the file (decoded text, blocks, chunks, rendered text, the response). */
  textPerByte: Partial<Record<Extension, number>>;
  /** Plain text, Markdown, reStructuredText: per line (each may become a block of its own). */
  textPerLine: number;
  /** CSV: per field, counted as delimiters and line ends (a cell is a string and an array slot, several times over). */
  csvPerField: number;
  /** CSV: per byte besides its fields (the decoded text). */
  csvPerByte: number;
  /** PDF: pdf.js and its document objects, whatever the size. */
  pdfFixedBytes: number;
  /** PDF: pdf.js's own copy of the file and its objects, per byte. */
  pdfPerByte: number;
  /** PDF: the text and layout of each page. */
  pdfPerPage: number;
  /** DOCX and PPTX parts are parsed into element trees: per declared byte of XML. */
  xmlPerByte: number;
  /** XLSX sheets are scanned as they inflate; what stays is the cells: per declared byte of sheet XML. */
  sheetPerByte: number;
  /** Shared strings are read whole into an array of strings: per declared byte. */
  sharedStringsPerByte: number;
  /** Pictures inside a document, per declared byte (read, then described one at a time). */
  mediaPerByte: number;
  /** Images: decoded pixels (greyscale and RGBA working copies, tesseract's heap), per pixel. */
  imagePerPixel: number;
  /** OCR scales larger images down to this many pixels first. */
  imageMaxPixels: number;
}

export const COST_MODEL: CostModel = {
  fixedBytes: 24 * MB,
  inputCopies: 2,
  textPerByte: {
    '.txt': 32,
    '.md': 40,
    '.markdown': 40,
    '.rst': 32,
    '.html': 40,
    '.htm': 40,
    '.json': 36,
    '.csv': 30,
  },
  textPerLine: 512,
  csvPerField: 320,
  csvPerByte: 4,
  pdfFixedBytes: 64 * MB,
  pdfPerByte: 6,
  pdfPerPage: 160 * 1024,
  xmlPerByte: 26,
  sheetPerByte: 13,
  sharedStringsPerByte: 16,
  mediaPerByte: 4,
  imagePerPixel: 30,
  imageMaxPixels: 30_000_000,
};
