/**
 * Language detection with eld (ISO 639-1 codes).
 *
 * eld reads only about the first 350 bytes of what it is given, so a long text is cut into windows of
 * words and the language with most words across the (evenly sampled) windows wins — "language of most
 * words". A window counts only when eld calls its answer reliable. The extra-small database is used:
 * it loads in ~0.15 s and ~85 MB instead of 0.25 s/150 MB (small) or 0.36 s/190 MB (medium), which
 * matters against the 300 MB parse budget, and eld's own figures give it 98.7% vs 99.1% on sentences.
 * eld's answers come from eldScorer.ts, which computes them as eld does, only faster.
 */
import type { ParsedDocument } from '../model.js';
import { LETTER, bmpClass, classAt, codePointWidth } from '../../text/charClass.js';
import { eldReliableLanguage } from './eldScorer.js';
import { letterRunEnd } from '../../text/words.js';

const MIN_WORDS = 3;
const MIN_LETTERS = 12;
const WINDOW_WORDS = 40;
const MAX_WINDOWS = 8;
const AGREEING_WINDOWS = 3;

/** 0 … count-1 with the first, last and middle first: the spread that says most soonest. */
function spreadOrder(count: number): number[] {
  const first = [...new Set([0, count - 1, Math.floor(count / 2)])];
  return [...first, ...Array.from({ length: count }, (_, i) => i).filter((i) => !first.includes(i))];
}

/**
 * The language most of the words of `text` are in, or null when the text is too short (under three
 * words or twelve letters) or eld is unsure about all of it. With `expected` (the document's
 * language, for a chunk), a first window reliably in that language settles it.
 */
export function detectLanguage(
  text: string,
  options: { maxWindows?: number; expected?: string | null } = {},
): string | null {
  return detectInParts([text], options);
}

/** `detectLanguage` of the parts joined by white space, without joining them. */
function detectInParts(
  parts: readonly string[],
  options: { maxWindows?: number; expected?: string | null },
): string | null {
  // The first window decides alone often enough to read only its words first.
  let tokens = letterWords(parts, WINDOW_WORDS + 1);
  if (tokens.count < MIN_WORDS || lettersIn(tokens) < MIN_LETTERS) return null;
  if (tokens.count <= WINDOW_WORDS) return eldReliableLanguage(joined(parts, tokens, 0, tokens.count));
  const first = eldReliableLanguage(joined(parts, tokens, 0, WINDOW_WORDS));
  // A chunk that opens in its document's language is in it: looking further changed the answer
  // for few chunks (mixed-language ones) and cost two thirds of the detection time.
  if (first !== null && first === options.expected) return first;

  tokens = letterWords(parts, Infinity);
  const windowCount = Math.ceil(tokens.count / WINDOW_WORDS);
  const sampled = Math.min(windowCount, options.maxWindows ?? MAX_WINDOWS);
  const wordsPerLanguage = new Map<string, number>();
  let reliableWindows = 0;
  const order = spreadOrder(sampled);
  for (const [turn, i] of order.entries()) {
    // The first, last and middle windows agreeing settle it: sampling the rest changed the answer
    // for under 1 % of chunks, and cost most of the parse workers' time on long documents.
    if (turn === AGREEING_WINDOWS && reliableWindows === AGREEING_WINDOWS && wordsPerLanguage.size === 1)
      break;
    // So does a lead the windows left could not overturn (the answer is the same, sooner).
    if (decided(wordsPerLanguage, (order.length - turn) * WINDOW_WORDS)) break;
    const window = Math.floor((i * windowCount) / sampled);
    const from = window * WINDOW_WORDS;
    const to = Math.min(tokens.count, from + WINDOW_WORDS);
    if (to - from < MIN_WORDS) continue;
    const language = window === 0 ? first : eldReliableLanguage(joined(parts, tokens, from, to));
    if (!language) continue;
    reliableWindows += 1;
    wordsPerLanguage.set(language, (wordsPerLanguage.get(language) ?? 0) + (to - from));
  }
  let best: string | null = null;
  let bestWords = 0;
  for (const [language, count] of wordsPerLanguage) {
    if (count > bestWords) [best, bestWords] = [language, count];
  }
  return best;
}

/** Whether the language with most words leads every other by more than `remaining` words. */
function decided(wordsPerLanguage: ReadonlyMap<string, number>, remaining: number): boolean {
  let best = 0;
  let second = 0;
  for (const count of wordsPerLanguage.values()) {
    if (count > best) [best, second] = [count, best];
    else if (count > second) second = count;
  }
  return best - second > remaining;
}

/** Dominant language of a document's text (headings, paragraphs, lists, table cells). */
export function detectDocumentLanguage(document: Pick<ParsedDocument, 'blocks'>): string | null {
  // The texts one by one rather than joined (a copy of the whole document): no word spans the
  // white space that would join them.
  const parts: string[] = [];
  for (const block of document.blocks) {
    if (block.type === 'heading' || block.type === 'paragraph') parts.push(block.text);
    else if (block.type === 'list') for (const item of block.items) parts.push(item);
    else if (block.type === 'table')
      for (const row of block.table.cells) for (const cell of row) parts.push(cell);
  }
  return detectInParts(parts, { maxWindows: 32 });
}

/** Offsets of the words eld is shown: `\p{L}[\p{L}\p{M}'’-]*` (numbers and symbols say nothing). */
interface Tokens {
  count: number;
  /** Index of the part each word is in. */
  parts: Int32Array;
  starts: Int32Array;
  ends: Int32Array;
}

// One buffer per thread, grown as needed: offsets, not a string per word (a chunk is read for a
// few windows, a document for at most 32).
const buffer: Tokens = {
  count: 0,
  parts: new Int32Array(1024),
  starts: new Int32Array(1024),
  ends: new Int32Array(1024),
};

// ASCII letters: the only ASCII a word starts with.
const ASCII_LETTER = new Uint8Array(0x80);
for (let unit = 0; unit < 0x80; unit += 1) ASCII_LETTER[unit] = bmpClass(unit) === LETTER ? 1 : 0;

/** The first `limit` words of the parts (all with `Infinity`). */
function letterWords(parts: readonly string[], limit: number): Tokens {
  const tokens = buffer;
  tokens.count = 0;
  for (let part = 0; part < parts.length && tokens.count < limit; part += 1) {
    scanPart(parts[part] ?? '', part, limit, tokens);
  }
  return tokens;
}

function scanPart(text: string, part: number, limit: number, tokens: Tokens): void {
  const length = text.length;
  let i = 0;
  while (i < length && tokens.count < limit) {
    const unit = text.charCodeAt(i);
    // ASCII other than letters starts no word: the common case, decided without a lookup.
    if (unit < 0x80 && ASCII_LETTER[unit] === 0) {
      i += 1;
      continue;
    }
    const surrogate = unit >= 0xd800 && unit <= 0xdfff;
    if ((surrogate ? classAt(text, i) : bmpClass(unit)) !== LETTER) {
      i += surrogate ? codePointWidth(text, i) : 1;
      continue;
    }
    const start = i;
    i = letterRunEnd(text, i + (surrogate ? codePointWidth(text, i) : 1), false);
    if (tokens.count === tokens.starts.length) grow(tokens);
    tokens.parts[tokens.count] = part;
    tokens.starts[tokens.count] = start;
    tokens.ends[tokens.count] = i;
    tokens.count += 1;
  }
}

function grow(tokens: Tokens): void {
  const parts = new Int32Array(tokens.parts.length * 2);
  parts.set(tokens.parts);
  tokens.parts = parts;
  const starts = new Int32Array(tokens.starts.length * 2);
  const ends = new Int32Array(tokens.ends.length * 2);
  starts.set(tokens.starts);
  ends.set(tokens.ends);
  tokens.starts = starts;
  tokens.ends = ends;
}

/** Words `from` … `to` - 1, joined by single spaces. */
function joined(parts: readonly string[], tokens: Tokens, from: number, to: number): string {
  let sample = '';
  for (let k = from; k < to; k += 1) {
    const text = parts[tokens.parts[k] ?? 0] ?? '';
    sample += (k > from ? ' ' : '') + text.slice(tokens.starts[k], tokens.ends[k]);
  }
  return sample;
}

function lettersIn(tokens: Tokens): number {
  let letters = 0;
  for (let k = 0; k < tokens.count; k += 1) {
    letters += (tokens.ends[k] ?? 0) - (tokens.starts[k] ?? 0);
    if (letters >= MIN_LETTERS) break;
  }
  return letters;
}
