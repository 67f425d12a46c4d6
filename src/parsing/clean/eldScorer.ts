/**
 * eld's language detection (extra-small database), computed step for step as eld 2.1.0's
 * `detect(text)` and `isReliable()` compute it, from eld's own database, separator regex and
 * thresholds — but without eld's per-call costs: its n-grams went through `for…in` over arrays and
 * into a fresh dictionary-mode object, every language's score was boxed and sorted to read the top
 * two. Chunk languages call it several times per chunk, and eld itself had become a quarter of the
 * parse workers' time; this gives the same answers about four times faster (the tests compare it
 * with `eld.detect` on real and random text).
 *
 * eld's data comes from the copy vendored in src/vendor/eld (eld's Apache-2.0 licence and what was
 * converted are there), so the product imports nothing of eld's package; the algorithm below follows
 * eld's languageDetector.js and LanguageResult.js (Copyright 2023 Nito T.M., Apache-2.0).
 */

import { avgScore, dictionary, languages, ngrams, separators } from '../../vendor/eld/extrasmall.js';

/** The vendored n-gram database as typed arrays (see `readNgrams`). */
export interface Ngrams {
  /** Byte n-gram (one character per byte, see eld's dictionary) → its number. */
  numberOf: Map<string, number>;
  /** N-gram number n's [language, weight + floor] pairs are `pairs[starts[n]]` to `pairs[starts[n + 1]]`. */
  starts: Int32Array;
  pairs: Int32Array;
}

/**
 * The vendored n-gram database, read from its text: one n-gram a line, `ngram<TAB>language:weight,…`
 * (src/vendor/eld/README.md). As eld's objects, its 50k n-grams would stay on every parse worker's
 * heap for good (~21 MB, half an idle worker's heap), and each full collection of the worker marks
 * them all: an idle worker's memory-reducing collections took ~100 ms of CPU that a search on the
 * same two cores waited for. Scanning the text makes no object per n-gram but its key. Language
 * numbers must be below `languageCount`; anything else stops the scan with an error, so a refresh
 * that writes another shape fails loudly.
 */
export function readNgrams(text: string, languageCount: number): Ngrams {
  const fail = (at: number): never => {
    throw new Error(`eld's n-gram database has an unexpected shape at offset ${at}`);
  };
  const numberOf = new Map<string, number>();
  const starts: number[] = [0];
  const pairs: number[] = [];
  let at = 0;
  const integer = (): number => {
    let value = 0;
    const from = at;
    for (let code = text.charCodeAt(at); code >= 48 && code <= 57; code = text.charCodeAt(++at))
      value = value * 10 + (code - 48);
    return at === from ? fail(from) : value;
  };
  while (at < text.length) {
    const tab = text.indexOf('\t', at);
    const newline = text.indexOf('\n', at);
    // A key of at least one character, on this line, and every n-gram new.
    if (tab <= at || (newline >= 0 && newline < tab)) fail(at);
    const key = text.slice(at, tab);
    if (numberOf.has(key)) fail(at);
    at = tab + 1;
    for (;;) {
      const language = integer();
      if (language >= languageCount || text[at] !== ':') fail(at);
      at += 1;
      pairs.push(language, integer() + BASE_NGRAM_SCORE);
      if (text[at] === '\n') break;
      if (text[at] !== ',') fail(at);
      at += 1;
    }
    at += 1;
    numberOf.set(key, numberOf.size);
    starts.push(pairs.length);
  }
  if (numberOf.size === 0) fail(0);
  return { numberOf, starts: Int32Array.from(starts), pairs: Int32Array.from(pairs) };
}

// eld stores each weight less this floor and adds it back when scoring.
const BASE_NGRAM_SCORE = 53;
const codes = languages;
const languageCount = codes.length;
const { numberOf, starts, pairs } = readNgrams(ngrams, languageCount);
const PLAIN_ASCII = /^[A-Za-z]+(?: [A-Za-z]+)*$/;
// eld's constants: how much of the text it reads, and how it scales and trusts scores.
const MAX_CHARS = 1000;
const CUT_AFTER_BYTES = 350;
const ENFORCE_CUT_AFTER_BYTES = 380;
const MAX_WORD_BYTES = 70;
const SCORE_SCALE = 25;
const RELIABLE_RATIO = 0.75;
const scores = new Float64Array(languageCount);

/**
 * The language eld detects in `text` when eld calls the result reliable
 * (`eld.detect(text)` with `language && isReliable()`), else null.
 */
export function eldReliableLanguage(text: string): string | null {
  const read = text.substring(0, MAX_CHARS);
  // Single-spaced ASCII letters (most English windows) are what the separator regex would leave.
  const words = PLAIN_ASCII.test(read) ? read : read.replace(separators, ' ').trim();
  const ngrams = byteNgrams(utf8Words(words.toLowerCase()));
  scores.fill(0);
  for (const ngram of ngrams) {
    const number = numberOf.get(ngram);
    if (number === undefined) continue;
    for (let k = starts[number]!; k < starts[number + 1]!; k += 2) scores[pairs[k]!]! += pairs[k + 1]!;
  }
  // eld's language: the first with the highest raw score.
  let best = -1;
  let bestScore = 0;
  for (let i = 0; i < languageCount; i += 1) {
    const score = scores[i] ?? 0;
    if (score > 0 && score > bestScore) [best, bestScore] = [i, score];
  }
  if (best < 0 || ngrams.size < 3) return null;
  // isReliable() reads the top two of the scaled scores in eld's (stable) order: score down, language up.
  let top = -1;
  let topScaled = -1;
  let second = -1;
  let secondScaled = -1;
  for (let i = 0; i < languageCount; i += 1) {
    const score = scores[i] ?? 0;
    if (!(score > 0)) continue;
    const perNgram = score / ngrams.size;
    const scaled = perNgram / (perNgram + SCORE_SCALE);
    if (scaled > topScaled) {
      [second, secondScaled] = [top, topScaled];
      [top, topScaled] = [i, scaled];
    } else if (scaled > secondScaled) [second, secondScaled] = [i, scaled];
  }
  const language = codes[best] ?? '';
  // As eld does, the runner-up's language *number* stands in for its score here.
  const next = second >= 0 ? second : 0;
  const average = avgScore[language] ?? Number.NaN;
  const reliable = !(average * RELIABLE_RATIO > topScaled || 0.01 > Math.abs(topScaled - next));
  return reliable ? language : null;
}

/**
 * eld's strToUtf8Bytes: words (split at spaces) as strings of one dictionary character per UTF-8 byte,
 * cut after a space past 350 bytes or anywhere past 380. ASCII stands for itself, so runs of it are
 * sliced from the text rather than added character by character.
 */
function utf8Words(text: string): string[] {
  const found: string[] = [];
  let encoded = '';
  // Start of the ASCII run not yet added to `encoded`.
  let run = 0;
  let end = text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    let code = text.charCodeAt(i);
    if (code < 0x80) {
      if (code === 32) {
        encoded += text.slice(run, i);
        run = i + 1;
        if (encoded !== '') found.push(encoded);
        encoded = '';
        if (bytes > CUT_AFTER_BYTES) {
          end = run;
          break;
        }
      }
      bytes += 1;
    } else if (code < 0x800) {
      encoded += text.slice(run, i) + byteChar(0xc0 | (code >> 6)) + byteChar(0x80 | (code & 0x3f));
      run = i + 1;
      bytes += 2;
    } else if (code < 0xd800 || code >= 0xe000) {
      encoded +=
        text.slice(run, i) +
        byteChar(0xe0 | (code >> 12)) +
        byteChar(0x80 | ((code >> 6) & 0x3f)) +
        byteChar(0x80 | (code & 0x3f));
      run = i + 1;
      bytes += 3;
    } else {
      encoded += text.slice(run, i);
      i += 1;
      code = 0x10000 + (((code & 0x3ff) << 10) | (text.charCodeAt(i) & 0x3ff));
      encoded +=
        byteChar(0xf0 | (code >> 18)) +
        byteChar(0x80 | ((code >> 12) & 0x3f)) +
        byteChar(0x80 | ((code >> 6) & 0x3f)) +
        byteChar(0x80 | (code & 0x3f));
      run = i + 1;
      bytes += 4;
    }
    if (bytes > ENFORCE_CUT_AFTER_BYTES) {
      end = i + 1;
      break;
    }
  }
  if (run < end) encoded += text.slice(run, end);
  if (encoded !== '') found.push(encoded);
  return found;
}

function byteChar(byte: number): string {
  return dictionary[byte] ?? '';
}

/** eld's getByteNgrams: 4-byte n-grams at a stride of 3, the first marked by a leading space, the last by a trailing one. */
function byteNgrams(words: readonly string[]): Set<string> {
  const ngrams = new Set<string>();
  for (const word of words) {
    const length = Math.min(word.length, MAX_WORD_BYTES);
    let j = 0;
    for (; j + 4 < length; j += 3) ngrams.add((j === 0 ? ' ' : '') + word.substring(j, j + 4));
    // Past the cap, eld's last n-gram runs to the end of the word (substring without an end).
    ngrams.add((j === 0 ? ' ' : '') + word.substring(length !== 3 ? length - 4 : 0) + ' ');
  }
  return ngrams;
}
