/**
 * Display cleaning of a parsed document: the stage between the parsers and chunking/rendering.
 */
import type { Block, ParsedDocument, Table } from '../model.js';
import {
  removeTatweel,
  repairLamAlef,
  resolveLamAlefLigatures,
  resolvePresentationForms,
  showsReversedLamAlef,
} from '../../text/arabic.js';
import { detectDocumentLanguage } from './language.js';
import { removeUrls } from './urls.js';
import { stripInvisible, tidyText, type Vocabulary } from '../../text/whitespace.js';
import { forEachWord } from '../../text/words.js';

export interface CleanOptions {
  /** Remove http(s)/www URLs (link text and e-mail addresses stay). */
  removeUrls: boolean;
  /**
   * Resolve Arabic presentation forms to letters and remove tatweel. The display text keeps its
   * letters (hamza, ta marbuta, alef maqsura, harakat); the heavy normalisation is
   * `normalizeForIndex`, for what is indexed and compared.
   */
  normalizeArabic: boolean;
}

/**
 * Cleans every block's text for display — headings, paragraphs, list items, table cells: words
 * hyphenated at line ends joined (real hyphens kept), lines of a paragraph joined, white space
 * collapsed and trimmed, invisible extraction junk removed, the PDF lam-alef ligature repaired (always:
 * it is an extraction error, not a variant), then the optional URL removal and Arabic normalisation.
 * Blocks left without text are dropped (and table indexes renumbered); images are kept as they are.
 * Fills `metadata.language` with the language of most words when the parser left it null.
 */
export function cleanDocument(document: ParsedDocument, options: CleanOptions): ParsedDocument {
  const blocks = cleanBlocks(document.blocks, options);
  // Tables dropped as empty leave no gap in the indexes (the cleaned tables are new objects).
  let tableIndex = 0;
  for (const block of blocks) if (block.type === 'table') block.table.index = tableIndex++;
  const cleanLine = (text: string): string =>
    cleanText(text, options, { vocabulary: new Set(), reversed: false });
  const title = cleanLine(document.metadata.title) || document.metadata.title.trim();
  const author = document.metadata.author === null ? null : cleanLine(document.metadata.author) || null;
  return {
    ...document,
    metadata: {
      ...document.metadata,
      title,
      author,
      language: document.metadata.language ?? detectDocumentLanguage({ blocks }),
    },
    blocks,
  };
}

/**
 * Cleans a run of blocks (a whole document, or one page for incremental parsing). Document-level
 * judgements — which line-end hyphens are real, whether lam-alef was extracted reversed — are made
 * over the blocks given. Table indexes are kept (`cleanDocument` renumbers after dropping).
 */
export function cleanBlocks(blocks: readonly Block[], options: CleanOptions): Block[] {
  const texts = blockTexts(blocks);
  const arabicWithLam = texts.filter((text) => LAM.test(text));
  const context: TextContext = {
    // Only line-end hyphens consult the vocabulary, so it is gathered when one first asks: most
    // documents (and every spreadsheet) never do, and gathering it cost a sixth of cleaning.
    vocabulary: texts.some((text) => LINE_END_HYPHEN.test(text)) ? lazyVocabulary(texts) : new Set(),
    reversed: showsReversedLamAlef(
      arabicWithLam.map((text) => stripInvisible(resolveLamAlefLigatures(text))),
    ),
  };
  return blocks.flatMap((block) => {
    const cleaned = cleanBlock(block, options, context);
    return cleaned ? [cleaned] : [];
  });
}

interface TextContext {
  vocabulary: Vocabulary;
  reversed: boolean;
}

function cleanBlock(block: Block, options: CleanOptions, context: TextContext): Block | null {
  switch (block.type) {
    case 'heading': {
      const text = cleanText(block.text, options, context);
      return text ? { ...block, text } : null;
    }
    case 'paragraph': {
      const text = cleanText(block.text, options, context, block.preformatted === true);
      return text ? { ...block, text } : null;
    }
    case 'list': {
      const items = block.items.map((item) => cleanText(item, options, context)).filter((item) => item);
      return items.length > 0 ? { ...block, items } : null;
    }
    case 'table': {
      const table = cleanTable(block.table, options, context);
      return table ? { ...block, table } : null;
    }
    case 'image':
      return block;
  }
}

function cleanTable(table: Table, options: CleanOptions, context: TextContext): Table | null {
  const cells = table.cells.map((row) => row.map((cell) => cleanText(cell, options, context)));
  if (cells.every((row) => row.every((cell) => cell === ''))) return null;
  const caption = table.caption === null ? null : cleanText(table.caption, options, context) || null;
  return { ...table, cells, caption };
}

// Text that no step would change: single-spaced visible letters, digits, punctuation and symbols, with
// no Arabic lam or tatweel, no presentation forms and nothing like a URL. Most table cells are such.
const ALREADY_CLEAN = /^[\p{L}\p{N}\p{P}\p{S}]+(?: [\p{L}\p{N}\p{P}\p{S}]+)*$/u;
const NEEDS_ARABIC_WORK = /[\u0640\u0644\uFB50-\uFDFF\uFE70-\uFEFF]|https?:|www\./i;
const LAM = /[\u0644\uFEF5-\uFEFC]/;
const LINE_END_HYPHEN = /[-\u2010][ \t]*\r?\n/;

function cleanText(text: string, options: CleanOptions, context: TextContext, preformatted = false): string {
  if (!preformatted && (text === '' || (ALREADY_CLEAN.test(text) && !NEEDS_ARABIC_WORK.test(text))))
    return text;
  let cleaned = text;
  if (options.normalizeArabic) cleaned = removeTatweel(resolvePresentationForms(cleaned));
  cleaned = tidyText(cleaned, { preformatted, vocabulary: context.vocabulary });
  if (options.removeUrls) cleaned = removeUrls(cleaned);
  if (!preformatted) cleaned = repairLamAlef(cleaned, { reversedDocument: context.reversed });
  return cleaned;
}

function blockTexts(blocks: readonly Block[]): string[] {
  const texts: string[] = [];
  for (const block of blocks) {
    if (block.type === 'heading' || block.type === 'paragraph') texts.push(block.text);
    // One push per item: spreading a row of a million cells into arguments overflows the stack.
    else if (block.type === 'list') for (const item of block.items) texts.push(item);
    else if (block.type === 'table')
      for (const row of block.table.cells) for (const cell of row) texts.push(cell);
  }
  return texts;
}

function lazyVocabulary(texts: string[]): Vocabulary {
  let vocabulary: Vocabulary | null = null;
  return { has: (word) => (vocabulary ??= vocabularyOf(texts)).has(word) };
}

/** Words of the document in lower case, hyphenated forms included: the judge of line-end hyphens. */
function vocabularyOf(texts: string[]): Vocabulary {
  const vocabulary = new Set<string>();
  for (const text of texts) {
    // The first half of a word split over a line end ("infor-") is not evidence for anything.
    forEachWord(text, (start, end) => {
      if (text.charCodeAt(end - 1) !== 0x2d) vocabulary.add(text.slice(start, end).toLowerCase());
    });
  }
  return vocabulary;
}
