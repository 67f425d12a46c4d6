import type { Block } from '../model.js';

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
