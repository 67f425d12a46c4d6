/**
 * Fuzzy matching for OCR assertions. OCR may misread a letter or two (a serif "l" for "1", a dropped
 * diacritic), so a word counts as found when some OCR token is similar enough to it:
 * similarity = 1 − Levenshtein distance / length of the longer word, compared after lower-casing
 * and Unicode NFC. The default threshold 0.8 allows one wrong letter in a word of five letters and
 * two in a word of ten; short words (≤ 3 letters) must match exactly.
 */
import { expect } from 'chai';

export function ocrTokens(text: string): string[] {
  return (
    text
      .normalize('NFC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

export function levenshtein(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= right.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (left[i - 1] === right[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[right.length] ?? 0;
}

export function similarity(a: string, b: string): number {
  const longest = Math.max([...a].length, [...b].length);
  return longest === 0 ? 1 : 1 - levenshtein(a, b) / longest;
}

export function hasWord(text: string, word: string, threshold = 0.8): boolean {
  const wanted = word.normalize('NFC').toLowerCase();
  const minimum = [...wanted].length <= 3 ? 1 : threshold;
  return ocrTokens(text).some((token) => similarity(token, wanted) >= minimum);
}

/** Asserts every word (or at least `share` of them) is found in the OCR text. */
export function expectWords(text: string, words: string[], share = 1): void {
  const missing = words.filter((word) => !hasWord(text, word));
  const found = words.length - missing.length;
  expect(found / words.length, `missing ${missing.join(', ')} in:\n${text}`).to.be.at.least(share);
}

/** The distinct words of a source text (for "most of the paragraph was read" checks). */
export function sourceWords(text: string): string[] {
  return [...new Set(ocrTokens(text))];
}
