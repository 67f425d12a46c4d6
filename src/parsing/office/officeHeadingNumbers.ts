import { sectionNumberDepth } from '../headingNumbers.js';
import type { Block } from '../model.js';

type Heading = Extract<Block, { type: 'heading' }>;

/**
 * Levels of headings that carry their section number in their text ("1.4.1 Applying changes"), from
 * that number, as in the other formats: generated word-processor files do not always give the outline
 * level the number says (the Debian Live manual's ODT puts "1." under level 4, "1.1" under 5). A lone
 * integer ("1. About this manual") is a chapter number only when the next dotted number below it
 * continues it ("1.1 …"), so "3 Ways to win" keeps its style's level. Unnumbered headings keep the
 * level their style or outline gives. Changes the blocks in place.
 */
export function levelsFromTypedNumbers(blocks: readonly Block[]): void {
  const headings = blocks.filter((block): block is Heading => block.type === 'heading');
  const depths = headings.map((heading) => sectionNumberDepth(heading.text));
  headings.forEach((heading, index) => {
    const depth = depths[index] ?? null;
    if (typeof depth === 'number') heading.level = depth;
    else if (depth === 'loneInteger' && continuedBelow(headings, depths, index)) heading.level = 1;
  });
}

function continuedBelow(
  headings: readonly Heading[],
  depths: ReadonlyArray<ReturnType<typeof sectionNumberDepth>>,
  index: number,
): boolean {
  const chapter = leadingNumber(headings[index]?.text ?? '');
  for (let next = index + 1; next < headings.length; next += 1) {
    const depth = depths[next];
    if (depth === 'loneInteger') return false;
    if (typeof depth === 'number' && depth >= 2) return leadingNumber(headings[next]?.text ?? '') === chapter;
  }
  return false;
}

function leadingNumber(text: string): string | undefined {
  return /^\s*(\d+)/.exec(text)?.[1];
}
