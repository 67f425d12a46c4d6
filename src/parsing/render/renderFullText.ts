import type { Block, ParsedDocument } from '../model.js';
import { renderHeading, renderImage, renderList, renderTable } from './blocks.js';

export interface FullTextOptions {
  /** Tables as Markdown in the text (`include_tables`). */
  includeTables: boolean;
  /** Images as `[Image p.N: description]` lines (`include_images`). */
  includeImages: boolean;
}

/**
 * The combined text of a document (`full_text`): blocks in reading order separated by blank lines,
 * headings as Markdown `#` lines, lists as `-`/`1.` lines, tables as Markdown and images as
 * `[Image p.N: description]` when the options include them.
 */
export function renderFullText(document: Pick<ParsedDocument, 'blocks'>, options: FullTextOptions): string {
  const parts: string[] = [];
  for (const block of document.blocks) {
    const text = renderBlockText(block, options);
    if (text) parts.push(text);
  }
  return parts.join('\n\n');
}

/** One block as it reads in the full text; empty when the options leave it out. */
export function renderBlockText(block: Block, options: FullTextOptions): string {
  switch (block.type) {
    case 'heading':
      return renderHeading(block.text, block.level);
    case 'paragraph':
      return block.text;
    case 'list':
      return renderList(block.items, block.ordered);
    case 'table':
      return options.includeTables ? renderTable(block.table) : '';
    case 'image':
      return options.includeImages ? renderImage(block.image) : '';
  }
}
