/**
 * Blocks cut into pieces no larger than a word budget — paragraphs at sentence then word boundaries,
 * preformatted text at line boundaries, lists at items, tables at rows with the header row repeated —
 * so the packer can fill chunks without ever exceeding the maximum.
 */
import { countWords, splitByWords } from '../../text/words.js';
import { splitSentences } from '../../text/sentences.js';
import type { Block, Image, Table } from '../model.js';
import { renderHeading, renderImage, renderListItem, renderTable } from '../render/blocks.js';

export interface Piece {
  text: string;
  words: number;
  page: number;
  /** Set when the piece is a heading line. */
  heading: { text: string; level: number } | null;
  table: Table | null;
  image: Image | null;
  /** True for the 2nd+ piece of a block that had to be split. */
  continuesBlock: boolean;
}

export interface BlockPieces {
  pieces: Piece[];
  /** Words of the block itself (a repeated table header counted once). */
  words: number;
}

/** Cuts `block` into pieces of at most `budget` words (budget ≥ 1). */
export function blockToPieces(block: Block, budget: number): BlockPieces {
  switch (block.type) {
    case 'heading': {
      const text = renderHeading(block.text, block.level);
      const pieces = textPieces(text, block.page, budget, 'sentence', blockWordCount(block));
      const first = pieces[0];
      if (first) first.heading = { text: block.text, level: block.level };
      return { pieces, words: sumWords(pieces) };
    }
    case 'paragraph': {
      const unit = block.preformatted ? 'line' : 'sentence';
      const pieces = textPieces(block.text, block.page, budget, unit, blockWordCount(block));
      return { pieces, words: sumWords(pieces) };
    }
    case 'list':
      return listPieces(block.items, block.ordered, block.page, budget, blockWordCount(block));
    case 'table':
      return tablePieces(block.table, block.page, budget, blockWordCount(block));
    case 'image': {
      // Badges and logos are counted among the images, never chunk text.
      if (block.image.kind === 'decoration') return { pieces: [], words: 0 };
      const image: Image = { ...block.image, data: null };
      const pieces = textPieces(renderImage(image), block.page, budget, 'sentence');
      const first = pieces[0];
      if (first) first.image = image;
      return { pieces, words: sumWords(pieces) };
    }
  }
}

function piece(text: string, page: number, continuesBlock: boolean, words = countWords(text)): Piece {
  return { text, words, page, heading: null, table: null, image: null, continuesBlock };
}

/** `total`: the words of `text`, when the caller knows them. */
function textPieces(
  text: string,
  page: number,
  budget: number,
  unit: 'sentence' | 'line',
  total = countWords(text),
): Piece[] {
  if (!text.trim()) return [];
  if (total <= budget) return [piece(text, page, false, total)];
  return splitText(text, budget, unit).map((part, i) => piece(part, page, i > 0));
}

/**
 * Splits `text` into balanced parts of at most `budget` words: as many parts as the budget requires,
 * each near the same size, cut between sentences (or lines), and inside a sentence only when the
 * sentence alone is too long.
 */
function splitText(text: string, budget: number, unit: 'sentence' | 'line'): string[] {
  const total = countWords(text);
  if (total <= budget) return [text];
  const size = balancedSize(total, budget);
  const units = (unit === 'line' ? text.split('\n') : splitSentences(text)).flatMap((part) =>
    countWords(part) > size ? splitByWords(part, size) : [part],
  );
  const joiner = unit === 'line' ? '\n' : ' ';
  return packUnits(units, countWords, size, budget)
    .map((group) => group.join(joiner))
    .map((part) => (unit === 'line' ? part.replace(/^\n+|\n+$/g, '') : part))
    .filter((part) => part.trim().length > 0);
}

/** Part size that cuts `total` words into the fewest parts of at most `budget`, all about equal. */
function balancedSize(total: number, budget: number): number {
  return Math.ceil(total / Math.ceil(total / budget));
}

/**
 * Groups consecutive units into runs of at most `size` words (a unit is never cut here). A small last
 * run (under half the size) joins the run before it when the two stay within `limit`, so a split does
 * not end in a fragment.
 */
function packUnits<T>(units: readonly T[], wordsOf: (unit: T) => number, size: number, limit: number): T[][] {
  const groups: T[][] = [];
  const sizes: number[] = [];
  let group: T[] = [];
  let words = 0;
  for (const unit of units) {
    const n = wordsOf(unit);
    if (words + n > size && group.length > 0) {
      groups.push(group);
      sizes.push(words);
      group = [];
      words = 0;
    }
    group.push(unit);
    words += n;
  }
  if (group.length > 0) {
    groups.push(group);
    sizes.push(words);
  }
  const last = sizes[sizes.length - 1] ?? 0;
  const previous = sizes[sizes.length - 2];
  if (previous !== undefined && last < size / 2 && previous + last <= limit) {
    const tail = groups.pop() ?? [];
    groups[groups.length - 1]?.push(...tail);
  }
  return groups;
}

function listPieces(
  items: readonly string[],
  ordered: boolean,
  page: number,
  budget: number,
  total: number,
): BlockPieces {
  const rendered = items.map((item, i) => renderListItem(item, ordered, i + 1));
  const whole = rendered.join('\n');
  if (total <= budget) return { pieces: whole ? [piece(whole, page, false, total)] : [], words: total };
  const size = balancedSize(total, budget);
  // An item longer than a part is cut at sentences first; its later parts read as continuation text.
  const lines = rendered.flatMap((line) =>
    countWords(line) > size ? splitText(line, size, 'sentence') : [line],
  );
  const pieces = packUnits(lines, countWords, size, budget).map((group, i) =>
    piece(group.join('\n'), page, i > 0),
  );
  return { pieces, words: total };
}

/** `total`: the table's words (`blockWordCount`). */
function tablePieces(table: Table, page: number, budget: number, total: number): BlockPieces {
  // Cell words add up to the words of the rendered table (Markdown punctuation is not a word), so a
  // large table is measured without rendering it whole.
  if (total === 0 && !table.caption) return { pieces: [], words: 0 };
  if (total <= budget) {
    const whole = renderTable(table);
    return { pieces: whole.trim() ? [{ ...piece(whole, page, false, total), table }] : [], words: total };
  }
  const rowWords = table.cells.map((row) => row.reduce((sum, cell) => sum + countWords(cell), 0));
  const captionWords = table.caption ? countWords(table.caption) : 0;

  const headed = table.hasHeader && table.cells.length > 0;
  let header = headed ? table.cells.slice(0, 1) : [];
  let first = headed ? 1 : 0;
  let caption = table.caption;
  let headerWords = captionWords + (headed ? (rowWords[0] ?? 0) : 0);
  const pieces: Piece[] = [];
  // A header (with its caption) that would eat most of every part is not repeated: the caption becomes
  // text of its own and the table is cut as plain rows.
  if (budget - headerWords < Math.max(1, Math.floor(budget / 4))) {
    if (caption) pieces.push(...textPieces(caption, page, budget, 'sentence'));
    header = [];
    first = 0;
    caption = null;
    headerWords = 0;
  }
  const available = Math.max(1, budget - headerWords);
  const rows = table.cells.map((_, i) => i).slice(first);
  const wordsOfRow = (row: number): number => rowWords[row] ?? 0;
  const rowTotal = rows.reduce((sum, row) => sum + wordsOfRow(row), 0);
  const size = Math.min(available, balancedSize(rowTotal, available));

  const addRows = (run: number[]): void => {
    for (const group of packUnits(run, wordsOfRow, size, available)) {
      const cells = [...header, ...group.map((row) => table.cells[row] ?? [])];
      const part: Table = { ...table, cells, hasHeader: header.length > 0, caption };
      const words = group.reduce((sum, row) => sum + wordsOfRow(row), headerWords);
      pieces.push({ ...piece(renderTable(part), page, pieces.length > 0, words), table: part });
    }
  };
  let run: number[] = [];
  for (const row of rows) {
    if (wordsOfRow(row) <= available) {
      run.push(row);
      continue;
    }
    // One row larger than a whole part: its cells become text so the limit still holds.
    addRows(run);
    run = [];
    for (const part of splitText((table.cells[row] ?? []).join(' | '), budget, 'sentence')) {
      pieces.push(piece(part, page, pieces.length > 0));
    }
  }
  addRows(run);
  return { pieces, words: total };
}

// Blocks are counted when auto mode weighs the structure and again when they are cut into pieces;
// blocks are not changed once cleaned, so the first count serves both.
const counted = new WeakMap<Block, number>();

/** Words of a block as chunks render it, without rendering it. */
export function blockWordCount(block: Block): number {
  let words = counted.get(block);
  if (words === undefined) {
    words = countBlockWords(block);
    counted.set(block, words);
  }
  return words;
}

function countBlockWords(block: Block): number {
  switch (block.type) {
    case 'heading':
    case 'paragraph':
      return countWords(block.text);
    case 'list': {
      // As rendered: each number of an ordered list is a word of its own ("3." before a space), and
      // "-", the line breaks and the indentation join no words.
      let words = block.ordered ? block.items.length : 0;
      for (const item of block.items) words += countWords(item);
      return words;
    }
    case 'table':
      return block.table.cells.reduce(
        (sum, row) => row.reduce((rowSum, cell) => rowSum + countWords(cell), sum),
        block.table.caption ? countWords(block.table.caption) : 0,
      );
    case 'image':
      return block.image.kind === 'decoration' ? 0 : countWords(renderImage(block.image));
  }
}

function sumWords(pieces: Piece[]): number {
  return pieces.reduce((sum, p) => sum + p.words, 0);
}
