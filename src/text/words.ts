/**
 * Word counting and word-boundary splitting, shared by cleaning, chunking and summarising.
 *
 * A word is a run starting with a letter (letters, combining marks, digits, apostrophes and inner
 * hyphens may follow: "well-known", "don't", "COVID-19", Arabic with harakat) or a number (with
 * decimal/thousand separators: "3.14", "1,000", "3rd"). Markdown punctuation (`#`, `|`, `---`) is not
 * a word, so rendered headings and tables count only their text. The price of a simple definition is
 * that scripts written without spaces (Chinese, Japanese, Thai) count one word per run.
 *
 * The definition is this regex (the tests hold the scanner below to it, match for match):
 * `\p{L}[\p{L}\p{M}\p{N}'’-]*|\p{N}[\p{N}\p{L}\p{M}]*(?:[.,:/]\p{N}+)*` with the `u` flag. The scanner
 * gives the same words several times faster: words are counted over every block and piece of every
 * document, and the regex had become a tenth of the parse workers' time.
 */
import { LETTER, MARK, NUMBER, bmpClass, classAt, codePointWidth, type CharClass } from './charClass.js';

/** Number of words in `text` (see the module comment for what a word is). */
export function countWords(text: string): number {
  let count = 0;
  let end = nextWord(text, 0);
  while (end >= 0) {
    count += 1;
    end = nextWord(text, end);
  }
  return count;
}

/** The words of `text`, in order. */
export function words(text: string): string[] {
  const found: string[] = [];
  forEachWord(text, (start, end) => found.push(text.slice(start, end)));
  return found;
}

/** Calls `visit` with the start and end offsets of each word of `text`, in order. */
export function forEachWord(text: string, visit: (start: number, end: number) => void): void {
  let end = nextWord(text, 0);
  while (end >= 0) {
    visit(wordStart, end);
    end = nextWord(text, end);
  }
}

/** Start and end offsets of each word of `text`. */
function wordSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  forEachWord(text, (start, end) => spans.push([start, end]));
  return spans;
}

/**
 * Cuts `text` into consecutive slices of at most `size` words, cutting only between words (at the
 * white space there, so an opening bracket stays with its word), so the word counts of the slices add
 * up to the word count of `text`. Slices are trimmed; a blank text gives none.
 */
export function splitByWords(text: string, size: number): string[] {
  const limit = Math.max(1, Math.floor(size));
  const spans = wordSpans(text);
  if (spans.length <= limit) return text.trim() ? [text.trim()] : [];
  const slices: string[] = [];
  let from = 0;
  for (let i = limit; i < spans.length; i += limit) {
    const previousEnd = spans[i - 1]?.[1] ?? from;
    const start = spans[i]?.[0] ?? text.length;
    const gap = text.slice(previousEnd, start);
    const space = gap.search(/\s/u);
    const to = space >= 0 ? previousEnd + space : start;
    slices.push(text.slice(from, to).trim());
    from = to;
  }
  slices.push(text.slice(from).trim());
  return slices.filter((slice) => slice.length > 0);
}

// ASCII letters and digits; the same plus ' and - (the ASCII of a letter-led word's body).
const ASCII_START = new Uint8Array(0x80);
const ASCII_LETTER_BODY = new Uint8Array(0x80);
const ASCII_LETTER_BODY_NO_DIGITS = new Uint8Array(0x80);
for (let unit = 0; unit < 0x80; unit += 1) {
  const kind = bmpClass(unit);
  ASCII_START[unit] = kind === LETTER || kind === NUMBER ? 1 : 0;
  ASCII_LETTER_BODY[unit] = isWordBody(kind) || unit === 0x27 || unit === 0x2d ? 1 : 0;
  ASCII_LETTER_BODY_NO_DIGITS[unit] = kind === LETTER || unit === 0x27 || unit === 0x2d ? 1 : 0;
}

// Start of the word `nextWord` found last: a second result without allocating a pair per word.
let wordStart = 0;

/**
 * Finds the first word at or after `from`: returns its end and leaves its start in `wordStart`;
 * -1 when there is none.
 */
function nextWord(text: string, from: number): number {
  const length = text.length;
  let i = from;
  while (i < length) {
    const unit = text.charCodeAt(i);
    // ASCII outside letters and digits starts no word: the common case, decided without a lookup.
    if (unit < 0x80 && ASCII_START[unit] === 0) {
      i += 1;
      continue;
    }
    const surrogate = unit >= 0xd800 && unit <= 0xdfff;
    const kind = surrogate ? classAt(text, i) : bmpClass(unit);
    const width = surrogate ? codePointWidth(text, i) : 1;
    if (kind === LETTER) {
      wordStart = i;
      return letterWordEnd(text, i + width);
    }
    if (kind === NUMBER) {
      wordStart = i;
      return numberWordEnd(text, i + width);
    }
    i += width;
  }
  return -1;
}

/** `[\p{L}\p{M}\p{N}'’-]*` from `i`. */
function letterWordEnd(text: string, from: number): number {
  return letterRunEnd(text, from, true);
}

/**
 * Where the rest of a word that began with a letter ends: `[\p{L}\p{M}\p{N}'’-]*` from `from`, or
 * `[\p{L}\p{M}'’-]*` without `withDigits` (the words language detection reads).
 */
export function letterRunEnd(text: string, from: number, withDigits: boolean): number {
  const asciiBody = withDigits ? ASCII_LETTER_BODY : ASCII_LETTER_BODY_NO_DIGITS;
  const length = text.length;
  let i = from;
  while (i < length) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) {
      if (asciiBody[unit] === 0) break;
      i += 1;
      continue;
    }
    if (unit === 0x2019) {
      i += 1;
      continue;
    }
    const surrogate = unit >= 0xd800 && unit <= 0xdfff;
    const kind = surrogate ? classAt(text, i) : bmpClass(unit);
    if (!(kind === LETTER || kind === MARK || (withDigits && kind === NUMBER))) break;
    i += surrogate ? codePointWidth(text, i) : 1;
  }
  return i;
}

/** `[\p{N}\p{L}\p{M}]*(?:[.,:/]\p{N}+)*` from `i`. */
function numberWordEnd(text: string, from: number): number {
  let i = runEnd(text, from, false);
  for (;;) {
    const unit = text.charCodeAt(i);
    if (!(unit === 0x2e || unit === 0x2c || unit === 0x3a || unit === 0x2f)) return i;
    if (i + 1 >= text.length || classAt(text, i + 1) !== NUMBER) return i;
    i = runEnd(text, i + 1, true);
  }
}

/** End of the run from `i` of numbers (`digitsOnly`) or of numbers, letters and marks. */
function runEnd(text: string, from: number, digitsOnly: boolean): number {
  const length = text.length;
  let i = from;
  while (i < length) {
    const kind = classAt(text, i);
    if (digitsOnly ? kind !== NUMBER : !isWordBody(kind)) break;
    i += codePointWidth(text, i);
  }
  return i;
}

function isWordBody(kind: CharClass): boolean {
  return kind === LETTER || kind === NUMBER || kind === MARK;
}
