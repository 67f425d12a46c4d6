import type { Block } from './model.js';

/**
 * Depth of a heading's section number: "Chapter 7." and "Appendix A" are 1, "7.1." 2, "A.2" 2,
 * "3.1.2.1" 4; null when the title carries no section number. A number must be followed by a
 * letter, so a version ("1.2.3 (2024-01-01)") or a date is not a section number. A lone integer
 * ("6 Patterns") is `loneInteger`: it is a section number only where its heading is a top one.
 */
export function sectionNumberDepth(text: string): number | 'loneInteger' | null {
  const title = text.trim();
  if (/^(?:chapter|appendix)\s+(?:\d+|[A-Z]|[IVXLC]+)\b[.:]?(?:\s|$)/iu.test(title)) return 1;
  const dotted = /^(\d{1,3}(?:\.\d{1,3})+)\.?\s+(?:["'“]|\(?\p{L})/u.exec(title);
  if (dotted?.[1]) return Math.min(6, dotted[1].split('.').length);
  const lettered = /^[A-Z]((?:\.\d{1,3})+)\.?\s+(?:["'“]|\(?\p{L})/u.exec(title);
  if (lettered?.[1]) return Math.min(6, 1 + lettered[1].split('.').length - 1);
  if (/^\d{1,2}\.?\s+\p{Lu}/u.test(title)) return 'loneInteger';
  return null;
}

/**
 * Heading levels from section numbers, for generated documentation whose tags say little about
 * depth (Texinfo puts a section under `<h3>` on a page of its own, DocBook a chapter's sections under
 * `<h2>`, a PDF's font sizes may not tell 3.3 from 3). A numbered heading gets its number's depth;
 * an unnumbered one keeps its distance from the heading before it (`keepUnnumbered` leaves those
 * alone, for formats whose levels come from elsewhere). Documents without numbered headings are left
 * as they are. Changes the blocks in place.
 */
export function levelsFromSectionNumbers(blocks: Block[], options: { keepUnnumbered?: boolean } = {}): void {
  const headings = blocks.filter(
    (block): block is Extract<Block, { type: 'heading' }> => block.type === 'heading',
  );
  if (headings.length === 0) return;
  const top = Math.min(...headings.map((heading) => heading.level));
  const depths = headings.map((heading) => {
    const depth = sectionNumberDepth(heading.text);
    if (depth === 'loneInteger') return heading.level === top ? 1 : null;
    return depth;
  });
  if (!depths.some((depth) => depth !== null)) return;
  let previous: { original: number; level: number } | null = null;
  headings.forEach((heading, index) => {
    const original = heading.level;
    const depth = depths[index] ?? null;
    if (depth !== null) heading.level = depth;
    else if (!options.keepUnnumbered && previous) {
      heading.level = Math.max(1, Math.min(6, previous.level + original - previous.original));
    }
    previous = { original, level: heading.level };
  });
}
