/**
 * Text of single blocks, shared by the full text, the LLM-ready Markdown and chunk contents so the
 * three always agree on how a heading, list, table or image reads.
 */
import type { Image, Table } from '../model.js';
import { tableToMarkdown } from '../tableText.js';
import { collapseWhitespace } from '../../text/whitespace.js';

/** `## Heading` — levels beyond Markdown's six are drawn as six. */
export function renderHeading(text: string, level: number): string {
  return `${'#'.repeat(Math.min(6, Math.max(1, Math.round(level))))} ${text}`;
}

/** One list item as a Markdown line (`- item` or `3. item`); inner line breaks are indented. */
export function renderListItem(item: string, ordered: boolean, position: number): string {
  const marker = ordered ? `${position}.` : '-';
  return `${marker} ${item.replace(/\n/g, `\n${' '.repeat(marker.length + 1)}`)}`;
}

export function renderList(items: readonly string[], ordered: boolean): string {
  return items.map((item, i) => renderListItem(item, ordered, i + 1)).join('\n');
}

/** A table as GitHub Markdown, its caption (when it has one) on the line above. */
export function renderTable(table: Table): string {
  const markdown = tableToMarkdown(table);
  return table.caption ? `${table.caption}\n\n${markdown}` : markdown;
}

/** `[Image p.3: a bar chart of revenue by quarter]`. */
export function renderImage(image: Image): string {
  return `[Image p.${image.pageNumber}: ${imageText(image)}]`;
}

/**
 * What is known of an image, best first: the Describer's description, the document's own alternative
 * text, the text OCR found, or its format and size.
 */
export function imageText(image: Image): string {
  const flat = (text: string | null): string => collapseWhitespace(text ?? '');
  const description = flat(image.description) || flat(image.altText);
  if (description) return description;
  const ocr = flat(image.ocrText);
  if (ocr) return `image with the text "${ocr}"`;
  const size = image.width && image.height ? ` ${image.width}×${image.height}` : '';
  return `${image.format ?? 'image'}${size}, no description`;
}
