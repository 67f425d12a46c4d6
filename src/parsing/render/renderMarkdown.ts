import type { Block, ParsedDocument } from '../model.js';
import { renderHeading, renderImage, renderList, renderTable } from './blocks.js';

/**
 * The whole document as Markdown for a language model (`llm_ready` when it is not summarised): the
 * title as a `#` line (unless the document opens with that heading), every block in reading order,
 * tables as Markdown, images as `[Image p.N: description]`, preformatted text fenced, and paragraph
 * starts that Markdown would misread (`# `, `- `, `1. `, `>`) escaped.
 */
export function renderMarkdown(document: Pick<ParsedDocument, 'metadata' | 'blocks'>): string {
  const parts: string[] = [];
  const title = document.metadata.title.trim();
  const first = document.blocks.find((block) => block.type === 'heading');
  const opensWithTitle = first !== undefined && document.blocks[0] === first && sameText(first.text, title);
  if (title && !opensWithTitle) parts.push(renderHeading(title, 1));
  for (const block of document.blocks) {
    const text = markdownOf(block);
    if (text) parts.push(text);
  }
  return parts.join('\n\n');
}

function markdownOf(block: Block): string {
  switch (block.type) {
    case 'heading':
      return renderHeading(block.text, block.level);
    case 'paragraph':
      return block.preformatted ? fence(block.text) : escapeParagraph(block.text);
    case 'list':
      return renderList(block.items, block.ordered);
    case 'table':
      return renderTable(block.table);
    case 'image':
      return renderImage(block.image);
  }
}

function fence(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const marker = '`'.repeat(longest + 1);
  return `${marker}\n${text}\n${marker}`;
}

function escapeParagraph(text: string): string {
  return text.replace(/^(\s*)(#{1,6}\s|[-+*]\s|>)/gm, '$1\\$2').replace(/^(\s*\d+)([.)]\s)/gm, '$1\\$2');
}

function sameText(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}
