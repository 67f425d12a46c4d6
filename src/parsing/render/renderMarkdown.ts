import type { Block, ParsedDocument } from '../model.js';
import { renderHeading } from './blocks.js';
import { renderBlockText } from './renderFullText.js';

/**
 * The whole document as Markdown for a language model (`llm_ready` when it is not summarised): the
 * title as a `#` line (unless the document opens with that heading), every block in reading order,
 * tables as Markdown, images as `[Image p.N: description]`, preformatted text fenced, and paragraph
 * starts that Markdown would misread (`# `, `- `, `1. `, `>`) escaped.
 */
export function renderMarkdown(document: Pick<ParsedDocument, 'metadata' | 'blocks'>): string {
  const parts: string[] = [];
  const title = document.metadata.title.trim();
  const first = document.blocks[0];
  const opensWithTitle = first?.type === 'heading' && sameText(first.text, title);
  if (title && !opensWithTitle) parts.push(renderHeading(title, 1));
  for (const block of document.blocks) {
    const text = markdownOf(block);
    if (text) parts.push(text);
  }
  return parts.join('\n\n');
}

/** A block as in the full text with tables and images, except that paragraphs are made Markdown-safe. */
function markdownOf(block: Block): string {
  if (block.type !== 'paragraph') return renderBlockText(block, { includeTables: true, includeImages: true });
  return block.preformatted ? fence(block.text) : escapeParagraph(block.text);
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
