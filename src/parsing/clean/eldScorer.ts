/**
 * eld's language detection (extra-small database), computed step for step as eld 2.1.0's
 * `detect(text)` and `isReliable()` compute it, from eld's own database, separator regex and
 * thresholds — but without eld's per-call costs: its n-grams went through `for…in` over arrays and
 * into a fresh dictionary-mode object, every language's score was boxed and sorted to read the top
 * two. Chunk languages call it several times per chunk, and eld itself had become a quarter of the
 * parse workers' time; this gives the same answers about four times faster (the tests compare it
 * with `eld.detect` on real and random text).
 *
 * eld's package exports only its finished detector, so its modules are imported by their place in
 * the package, which is pinned (package.json): an update that moves them fails loudly here.
 */

import { readFileSync } from 'node:fs';

const eldSource = new URL('../', import.meta.resolve('eld/extrasmall'));
const load = async <T>(path: string): Promise<T> => (await import(new URL(path, eldSource).href)) as T;
const [{ dictionary }, { separators }, { avgScore }] = await Promise.all([
  load<{ dictionary: string[] }>('dictionary.js'),
  load<{ separators: RegExp }>('regexPatterns.js'),
  load<{ avgScore: Record<string, number> }>('avgScore.js'),
]);

/** eld's n-gram database as typed arrays (see `readNgrams`). */
export interface Ngrams {
  /** Language number → ISO 639-1 code. */
  codes: string[];
  /** Byte n-gram (one character per byte, see eld's dictionary.js) → its number. */
  numberOf: Map<string, number>;
  /** N-gram number n's [language, weight + floor] pairs are `pairs[starts[n]]` to `pairs[starts[n + 1]]`. */
  starts: Int32Array;
  pairs: Int32Array;
}

/**
 * eld's n-gram database, read from its module's text. Imported, its 50k objects would stay on every
 * parse worker's heap for good (~21 MB, half an idle worker's heap), and each full collection of the
 * worker marks them all: an idle worker's memory-reducing collections took ~100 ms of CPU that a
 * search on the same two cores waited for. Evaluating the literal and converting it took ~170 ms of
 * each worker's start; scanning the text takes a fraction of that and makes no object per n-gram.
 * The module is one object literal whose n-grams are `key:{language:weight,…}`, keys bare or in
 * single quotes (with `\'` and `\\` escaped): anything else stops the scan with an error, so an
 * update of the pinned package that changes it fails loudly.
 */
export function readNgrams(source: string): Ngrams {
  const fail = (at: number): never => {
    throw new Error(`eld's n-gram database has an unexpected shape at offset ${at}`);
  };
  const languages = /languages:\{([^}]*)\}/.exec(source)?.[1] ?? fail(0);
  const codes: string[] = [];
  for (const [, number, code] of languages.matchAll(/(\d+):'([a-z]+)'/g)) codes[Number(number)] = code!;
  let at = source.indexOf('ngrams:{');
  // Spread, a missing language number reads as undefined.
  if (at < 0 || codes.length === 0 || [...codes].some((code) => code === undefined)) fail(0);
  at += 'ngrams:{'.length;
  const numberOf = new Map<string, number>();
  const starts: number[] = [0];
  const pairs: number[] = [];
  const integer = (): number => {
    let value = 0;
    const from = at;
    for (let code = source.charCodeAt(at); code >= 48 && code <= 57; code = source.charCodeAt(++at))
      value = value * 10 + (code - 48);
    return at === from ? fail(at) : value;
  };
  const expect = (char: string): void => {
    if (source[at] !== char) fail(at);
    at += 1;
  };
  for (;;) {
    let key = '';
    if (source[at] === "'") {
      at += 1;
      for (let from = at; ; at += 1) {
        const char = source[at] ?? fail(at);
        if (char === "'") {
          key += source.slice(from, at);
          at += 1;
          break;
        }
        if (char === '\\') {
          key += source.slice(from, at);
          const escaped = source[at + 1];
          if (escaped !== "'" && escaped !== '\\') fail(at);
          key += escaped;
          at += 1;
          from = at + 1;
        }
      }
    } else {
      const end = source.indexOf(':', at);
      key = source.slice(at, end);
      if (end < 0 || !/^[A-Za-z_$][\w$]*$/.test(key)) fail(at);
      at = end;
    }
    expect(':');
    expect('{');
    for (;;) {
      const language = integer();
      expect(':');
      pairs.push(language, integer() + BASE_NGRAM_SCORE);
      if (source[at] === '}') break;
      expect(',');
    }
    at += 1;
    numberOf.set(key, numberOf.size);
    starts.push(pairs.length);
    if (source[at] === '}') break;
    expect(',');
  }
  return { codes, numberOf, starts: Int32Array.from(starts), pairs: Int32Array.from(pairs) };
}

// eld stores each weight less this floor and adds it back when scoring.
const BASE_NGRAM_SCORE = 53;
/** The text of eld's n-gram module, as `readNgrams` reads it. */
export const ELD_NGRAMS_URL = new URL('ngrams/extrasmall.js', eldSource);
const { codes, numberOf, starts, pairs } = readNgrams(readFileSync(ELD_NGRAMS_URL, 'utf8'));
const languageCount = codes.length;
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
