import type { ParseContext } from '../context.js';
import type { ParsedDocument } from '../model.js';
import { createDocumentBuilder, type DocumentBuilder, type FoundImage } from './documentBuilder.js';
import { imageFromSource } from './images.js';
import { readTextInput, splitLines } from './input.js';
import type { RstBlock, RstItem, RstState } from './rstModel.js';
import { readRstBlocks } from './rstReader.js';

/**
 * reStructuredText with a small reader of its own: section titles (underline, optional overline;
 * levels by first appearance of each adornment style), paragraphs, bullet and enumerated lists,
 * literal blocks (`::`, `.. code-block::`), grid and simple tables (plus `csv-table` and
 * `list-table`), images and figures (alt text), and docinfo fields (`:Author:`, `:Title:`, `:Date:`…)
 * into metadata. Comments and targets are dropped.
 */
export async function parseRst(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  const { text } = readTextInput(bytes, ctx);
  const builder = createDocumentBuilder(ctx, '.rst');
  const lines = splitLines(text).map(expandTabs);
  const state: RstState = {
    styles: [],
    fields: {},
    title: null,
    docinfoOpen: true,
    headingCount: 0,
    maxDepth: ctx.limits.maxNestingDepth,
    fileName: ctx.fileName,
  };
  const blocks = readRstBlocks(lines, state);
  await builder.checkpoint();
  for (const [i, block] of blocks.entries()) {
    emit(builder, block);
    if ((i & 0x7ff) === 0x7ff) await builder.checkpoint();
  }

  const { title, author, authors, ...extra } = state.fields;
  return builder.finish({ title: title ?? state.title, author: author ?? authors ?? null, extra });
}

function emit(builder: DocumentBuilder, block: RstBlock): void {
  switch (block.kind) {
    case 'heading':
      builder.heading(block.text, block.level);
      break;
    case 'paragraph':
      builder.paragraph(block.text);
      break;
    case 'literal':
      builder.paragraph(block.text, true);
      break;
    case 'table':
      builder.table(block.table.cells, block.table.hasHeader, block.caption);
      break;
    case 'image':
      builder.image(imageFromSource(block.src, block.alt));
      break;
    case 'list': {
      const images: FoundImage[] = [];
      const items: string[] = [];
      flattenItems(block.items, 0, items, images);
      builder.list(items, block.ordered);
      for (const image of images) builder.image(image);
      break;
    }
  }
}

/** Nested lists become indented items; an item's other paragraphs join its text. */
function flattenItems(items: readonly RstItem[], depth: number, out: string[], images: FoundImage[]): void {
  for (const item of items) {
    const texts = [item.text];
    const nested: RstItem[][] = [];
    for (const child of item.children) {
      if (child.kind === 'list') nested.push(child.items);
      else if (child.kind === 'image') images.push(imageFromSource(child.src, child.alt));
      else if (child.kind === 'table') texts.push(child.table.cells.map((row) => row.join(' | ')).join('; '));
      else texts.push(child.text);
    }
    const text = texts
      .filter((part) => part.trim() !== '')
      .join(' ')
      .replace(/\s*\n\s*/g, ' ');
    if (text) out.push('  '.repeat(depth) + text);
    for (const list of nested) flattenItems(list, depth + 1, out, images);
  }
}

function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  for (const char of line) out += char === '\t' ? ' '.repeat(8 - (out.length % 8)) : char;
  return out;
}
