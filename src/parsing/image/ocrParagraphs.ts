import type { Block, Page } from '../model.js';

/**
 * OCR output separates paragraphs with blank lines. Each becomes a paragraph block whose lines stay
 * joined with "\n": the cleaning stage joins them and mends words hyphenated at line ends.
 */
export function ocrParagraphs(text: string, page: number): Block[] {
  return text
    .split(/\n[ \t]*\n/)
    .map((paragraph) =>
      paragraph
        .split('\n')
        .map((line) => line.replace(/\s+/g, ' ').trim())
        .filter((line) => line !== '')
        .join('\n'),
    )
    .filter((paragraph) => paragraph !== '')
    .map((paragraph): Block => ({ type: 'paragraph', text: paragraph, page }));
}

/** A page read by OCR (an image, a scanned PDF page): no text layer, and a note when OCR found no text. */
export function ocrAppliedPage(number: number, paragraphs: readonly Block[]): Page {
  return {
    number,
    hasTextLayer: false,
    ocr: 'applied',
    note: paragraphs.length === 0 ? `OCR found no text on page ${number}` : null,
  };
}

/**
 * A page whose OCR failed (for a reason other than a stop, which the caller rethrows): the page says
 * why, and so does the document's warning.
 */
export function ocrFailure(number: number, error: unknown): { page: Page; warning: string } {
  const reason = error instanceof Error ? error.message : String(error);
  const message = `OCR of page ${number} failed: ${reason}`;
  return { page: { number, hasTextLayer: false, ocr: 'failed', note: message }, warning: message };
}
