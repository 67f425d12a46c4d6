import type { Block, Image } from './model.js';
import { looksDecorative } from './text/decorativeImages.js';

/**
 * A document's title when its metadata names none. What opens the document, first: its first heading
 * if only images come before it, else the alternative text of an image that opens it — a project's
 * logo ("Koa middleware framework for nodejs"; a trailing "logo" dropped) unless it reads like a
 * badge or a banner. Else its first level-1 heading. A heading after the text has begun names a
 * section, not the document (a README's "Installation", a last "# License"), so it comes last.
 */
export function titleFromBlocks(blocks: readonly Block[]): string | null {
  const opening: Image[] = [];
  for (const block of blocks) {
    if (block.type === 'heading' && block.text.trim()) return block.text.trim();
    if (block.type !== 'image') break;
    opening.push(block.image);
  }
  for (const image of opening) {
    const alt = image.altText?.replace(/\s+logo$/i, '').trim() ?? '';
    if (alt && !looksDecorative({ altText: alt })) return alt;
  }
  const top = blocks.find((block) => block.type === 'heading' && block.level === 1 && block.text.trim());
  return top?.type === 'heading' ? top.text.trim() : null;
}
