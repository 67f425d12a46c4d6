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

interface NgramsData {
  type: string;
  /** Language number → ISO 639-1 code. */
  languages: Record<string, string>;
  /** Byte n-gram (one character per byte, see eld's dictionary.js) → language number → weight. */
  ngrams: Record<string, Record<string, number>>;
}

const eldSource = new URL('../', import.meta.resolve('eld/extrasmall'));
const load = async <T>(path: string): Promise<T> => (await import(new URL(path, eldSource).href)) as T;
const [{ ngramsData }, { dictionary }, { separators }, { avgScore }] = await Promise.all([
  load<{ ngramsData: NgramsData }>('ngrams/extrasmall.js'),
  load<{ dictionary: string[] }>('dictionary.js'),
  load<{ separators: RegExp }>('regexPatterns.js'),
  load<{ avgScore: Record<string, number> }>('avgScore.js'),
]);

const PLAIN_ASCII = /^[A-Za-z]+(?: [A-Za-z]+)*$/;
const languageCount = Object.keys(ngramsData.languages).length;
const codes = Array.from({ length: languageCount }, (_, i) => ngramsData.languages[i] ?? '');
// eld stores each weight less this floor and adds it back when scoring.
const BASE_NGRAM_SCORE = 53;
// eld's constants: how much of the text it reads, and how it scales and trusts scores.
const MAX_CHARS = 1000;
const CUT_AFTER_BYTES = 350;
const ENFORCE_CUT_AFTER_BYTES = 380;
const MAX_WORD_BYTES = 70;
const SCORE_SCALE = 25;
const RELIABLE_RATIO = 0.75;

/** N-gram → [language, weight + floor, …], filled as n-grams are met (at most the database's 43k). */
const weightsCache = new Map<string, Int32Array>();
const scores = new Float64Array(languageCount);

function weightsOf(ngram: string): Int32Array | undefined {
  const cached = weightsCache.get(ngram);
  if (cached !== undefined || !Object.hasOwn(ngramsData.ngrams, ngram)) return cached;
  const byLanguage = ngramsData.ngrams[ngram] ?? {};
  const flat: number[] = [];
  for (const [language, weight] of Object.entries(byLanguage))
    flat.push(Number(language), weight + BASE_NGRAM_SCORE);
  const weights = Int32Array.from(flat);
  weightsCache.set(ngram, weights);
  return weights;
}

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
    const weights = weightsOf(ngram);
    if (weights === undefined) continue;
    for (let k = 0; k < weights.length; k += 2) {
      const language = weights[k] ?? 0;
      scores[language] = (scores[language] ?? 0) + (weights[k + 1] ?? 0);
    }
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
