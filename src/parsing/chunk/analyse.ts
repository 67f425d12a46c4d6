/**
 * The `auto` chunking mode: look at the document's structure and pick a strategy.
 */
import type { ParsedDocument } from '../model.js';
import type { ChunkingStrategy } from './model.js';
import { blockWordCount } from './pieces.js';

export interface StructureAnalysis {
  headings: number;
  /** Share of the words that lie under some heading (after the first one). */
  headingCoverage: number;
  /** Mean words per heading-delimited section. */
  wordsPerSection: number;
  pagesWithText: number;
  /** Median words of the pages that have any. */
  medianPageWords: number;
  totalWords: number;
}

/** Formats whose pages are natural units (slides, sheets) whatever their size. */
const PAGE_FORMATS = new Set(['.pptx', '.xlsx', '.odp', '.ods']);

export function analyseStructure(document: Pick<ParsedDocument, 'blocks'>): StructureAnalysis {
  let headings = 0;
  let totalWords = 0;
  let wordsUnderHeadings = 0;
  const pageWords = new Map<number, number>();
  for (const block of document.blocks) {
    const words = blockWordCount(block);
    if (block.type === 'heading') headings += 1;
    totalWords += words;
    if (headings > 0) wordsUnderHeadings += words;
    if (words > 0) pageWords.set(block.page, (pageWords.get(block.page) ?? 0) + words);
  }
  const perPage = [...pageWords.values()].sort((a, b) => a - b);
  return {
    headings,
    headingCoverage: totalWords === 0 ? 0 : wordsUnderHeadings / totalWords,
    wordsPerSection: headings === 0 ? totalWords : totalWords / headings,
    pagesWithText: perPage.length,
    medianPageWords: perPage[Math.floor((perPage.length - 1) / 2)] ?? 0,
    totalWords,
  };
}

/**
 * Picks the strategy for `auto`:
 * 1. semantic when headings structure the text: at least two, covering at least half of the words,
 *    with sections of ten words or more on average (PDF heading guesses that fire on every other line
 *    fail this and fall through);
 * 2. page when the document has two or more pages with text and its pages are chunk-sized units —
 *    slides and sheets always, other pages when their median size lies between a fifth of the target
 *    and the maximum;
 * 3. semantic for a single heading (a title) over most of the text, else paragraph.
 */
export function chooseStrategy(
  document: Pick<ParsedDocument, 'blocks' | 'format'>,
  sizes: { targetWords: number; maxWords: number },
): { strategy: ChunkingStrategy; analysis: StructureAnalysis } {
  const analysis = analyseStructure(document);
  const structured = analysis.headingCoverage >= 0.5 && analysis.wordsPerSection >= 10;
  if (analysis.headings >= 2 && structured) return { strategy: 'semantic', analysis };
  const chunkSizedPages =
    PAGE_FORMATS.has(document.format) ||
    (analysis.medianPageWords >= sizes.targetWords / 5 && analysis.medianPageWords <= sizes.maxWords);
  if (analysis.pagesWithText >= 2 && chunkSizedPages) return { strategy: 'page', analysis };
  if (analysis.headings === 1 && structured) return { strategy: 'semantic', analysis };
  return { strategy: 'paragraph', analysis };
}
