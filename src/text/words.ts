/**
 * Word counting and word-boundary splitting, shared by cleaning, chunking and summarising.
 *
 * A word is a run starting with a letter (letters, combining marks, digits, apostrophes and inner
 * hyphens may follow: "well-known", "don't", "COVID-19", Arabic with harakat) or a number (with
 * decimal/thousand separators: "3.14", "1,000", "3rd"). Markdown punctuation (`#`, `|`, `---`) is not
 * a word, so rendered headings and tables count only their text.
 *
 * The definition is this regex (the tests hold the scanner below to it, match for match):
 * `\p{L}[\p{L}\p{M}\p{N}'’-]*|\p{N}[\p{N}\p{L}\p{M}]*(?:[.,:/]\p{N}+)*` with the `u` flag. The scanner
 * gives the same words several times faster: words are counted over every block and piece of every
 * document, and the regex had become a tenth of the parse workers' time.
 *
 * Except for scripts written without spaces between words (Chinese, Japanese, Thai, Lao, Khmer,
 * Burmese): a run the regex matches that holds one of their characters would be a whole clause, so
 * chunk budgets and summaries counted a Chinese paragraph as a handful of words. Such a run is divided
 * into the word-like segments `Intl.Segmenter` finds in it (ICU's dictionaries: "我们测试了系统" is
 * 我们 · 测试 · 了 · 系统), and such text is counted at the segmenter's pace (3–8 MB/s, against 100–400
 * for the scanner alone). Only those runs: elsewhere the segmenter is 15–50 times slower than the
 * scanner and splits what this definition keeps whole ("well-known", "COVID-19"); `npm run bench --
 * textSegmentation` measures both. Without ICU (a Node built without Intl) a run stays one word.
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

// Set by `nextRun` (and `letterRunEnd`) when a run holds a character of a script written without
// spaces; cleared by whoever reads it set, and by a scan from offset 0 (language detection's calls
// of `letterRunEnd` may leave it set). Words of other scripts neither set nor clear it.
let spaceless = false;

// Words found ahead by `divide`, which gave a stretch of text to the segmenter: the text, where the
// stretch ends, and its words' start and end offsets in pairs, the next one to give at `dividedNext`.
// A scan from offset 0 forgets them (a `forEachWord` visitor that scans other text itself would make
// the outer scan divide the rest of such a run alone; none does).
let dividedText: string | null = null;
let dividedEnd = 0;
const dividedWords: number[] = [];
let dividedNext = 0;

// How far ahead `divide` looks. The runs of a stretch go to the segmenter together: each `segment()`
// call has a fixed cost of its own, and Chinese paragraphs counted 1.5 times faster in stretches of
// 512 characters than run by run — but not in longer stretches, which the segmenter walks more
// slowly per character (2 MB/s over 8,192 characters, 4 over 512).
const DIVIDE_AHEAD = 512;

let wordSegmenter: Intl.Segmenter | null | undefined;

function segmenter(): Intl.Segmenter | null {
  if (wordSegmenter === undefined) {
    // ICU picks the dictionary by script, whatever the locale: 'en', 'zh', 'ja' and 'th' divide alike.
    wordSegmenter =
      typeof Intl.Segmenter === 'function' ? new Intl.Segmenter('en', { granularity: 'word' }) : null;
  }
  return wordSegmenter;
}

const IS_SPACELESS =
  /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]$/u;
// 0 = not asked yet, 1 = no, 2 = yes; filled as characters are met (the first is U+0E01, Thai).
const spacelessBmp = new Uint8Array(0x10000);
const spacelessAstral = new Map<number, boolean>();

/** Whether the character at `index` is of a script written without spaces between words. */
function isSpacelessAt(text: string, index: number): boolean {
  const unit = text.charCodeAt(index);
  if (unit < 0x0e00) return false;
  if (unit < 0xd800 || unit > 0xdbff) {
    let known = spacelessBmp[unit];
    if (known === 0) {
      known = IS_SPACELESS.test(String.fromCharCode(unit)) ? 2 : 1;
      spacelessBmp[unit] = known;
    }
    return known === 2;
  }
  const codePoint = text.codePointAt(index) ?? unit;
  let known = spacelessAstral.get(codePoint);
  if (known === undefined) {
    known = IS_SPACELESS.test(String.fromCodePoint(codePoint));
    spacelessAstral.set(codePoint, known);
  }
  return known;
}

function holdsSpaceless(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i += 1) if (isSpacelessAt(text, i)) return true;
  return false;
}

/**
 * Finds the words from the run `text[from, to)`, which holds a character of a script written without
 * spaces, to about DIVIDE_AHEAD characters further, for `nextWord` to give one by one. Each such run
 * becomes the word-like segments the segmenter finds in it: the runs are given to it in one string,
 * a line break between two (a word boundary on both sides whatever surrounds it), so each is divided
 * as it would be alone. The other runs are words as they are.
 */
function divide(text: string, from: number, to: number, divider: Intl.Segmenter): void {
  const runs: number[] = []; // start, end, 1 when divided
  const parts: string[] = [];
  let start = from;
  let end = to;
  let divided = true;
  for (;;) {
    runs.push(start, end, divided ? 1 : 0);
    if (divided) parts.push(text.slice(start, end));
    if (end >= from + DIVIDE_AHEAD) break;
    const next = nextRun(text, end);
    if (next < 0) break;
    start = wordStart;
    end = next;
    divided = spaceless;
    spaceless = false;
  }
  dividedText = text;
  dividedEnd = end;
  dividedWords.length = 0;
  dividedNext = 0;
  const segments = divider.segment(parts.join('\n'))[Symbol.iterator]();
  // Offset in the joined string of the divided run at hand.
  let offset = 0;
  let segment = segments.next();
  for (let r = 0; r < runs.length; r += 3) {
    const runStart = runs[r] ?? 0;
    const runEnd = runs[r + 1] ?? 0;
    if (runs[r + 2] === 0) {
      dividedWords.push(runStart, runEnd);
      continue;
    }
    const length = runEnd - runStart;
    while (!segment.done && segment.value.index < offset + length) {
      const { index, segment: part, isWordLike } = segment.value;
      if (isWordLike) dividedWords.push(runStart + index - offset, runStart + index - offset + part.length);
      segment = segments.next();
    }
    offset += length + 1;
  }
}

/** The next word `divide` found starting at or after `from`, as `nextWord` gives it; -1 if none. */
function nextDividedWord(from: number): number {
  while (dividedNext < dividedWords.length && (dividedWords[dividedNext] ?? 0) < from) dividedNext += 2;
  if (dividedNext >= dividedWords.length) return -1;
  wordStart = dividedWords[dividedNext] ?? 0;
  const end = dividedWords[dividedNext + 1] ?? 0;
  dividedNext += 2;
  return end;
}

/**
 * Finds the first word at or after `from`: returns its end and leaves its start in `wordStart`;
 * -1 when there is none.
 */
function nextWord(text: string, from: number): number {
  let i = from;
  if (from === 0) {
    dividedText = null;
    dividedEnd = 0;
    spaceless = false;
  } else if (from < dividedEnd && dividedText === text) {
    const end = nextDividedWord(from);
    if (end >= 0) return end;
    i = dividedEnd;
  }
  for (;;) {
    const end = nextRun(text, i);
    if (end < 0 || !spaceless) return end;
    spaceless = false;
    const divider = segmenter();
    if (divider === null) return end;
    const start = wordStart;
    divide(text, start, end, divider);
    const word = nextDividedWord(start);
    if (word >= 0) return word;
    i = dividedEnd;
  }
}

/**
 * Finds the first run of the regex at or after `from`: returns its end, leaves its start in
 * `wordStart` and sets `spaceless` when it holds a character of a script written without spaces;
 * -1 when there is none.
 */
function nextRun(text: string, from: number): number {
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
      if (unit >= 0x0e00 && isSpacelessAt(text, i)) spaceless = true;
      return letterWordEnd(text, i + width);
    }
    if (kind === NUMBER) {
      wordStart = i;
      const end = numberWordEnd(text, i + width);
      if (holdsSpaceless(text, i, end)) spaceless = true;
      return end;
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
 * `[\p{L}\p{M}'’-]*` without `withDigits` (the words language detection reads). Sets `spaceless` when
 * the run holds a character of a script written without spaces (never clears it).
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
    if (unit >= 0x0e00 && !spaceless && isSpacelessAt(text, i)) spaceless = true;
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
