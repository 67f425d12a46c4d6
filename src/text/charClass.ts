/**
 * The Unicode general category class (letter, mark, number, other) of a code point, for scanners
 * that must agree exactly with `\p{L}`, `\p{M}` and `\p{N}` in `u` regexes but run far faster on
 * long text. Each class comes from those very regexes, asked once per code point and remembered:
 * ASCII up front, the rest of the Basic Multilingual Plane in a table filled as characters are met,
 * the astral planes in a map.
 */
export const OTHER = 1;
export const LETTER = 2;
export const MARK = 3;
export const NUMBER = 4;
export type CharClass = typeof OTHER | typeof LETTER | typeof MARK | typeof NUMBER;

const IS_LETTER = /^\p{L}$/u;
const IS_MARK = /^\p{M}$/u;
const IS_NUMBER = /^\p{N}$/u;

function classify(codePoint: number): CharClass {
  const char = String.fromCodePoint(codePoint);
  if (IS_LETTER.test(char)) return LETTER;
  if (IS_MARK.test(char)) return MARK;
  return IS_NUMBER.test(char) ? NUMBER : OTHER;
}

// 0 = not asked yet. 64 KiB per thread, filled only where text has characters.
const bmp = new Uint8Array(0x10000);
for (let code = 0; code < 0x80; code += 1) bmp[code] = classify(code);
const astral = new Map<number, CharClass>();

/**
 * Class of the code unit at `index` of `text`, a surrogate pair read as the code point it encodes
 * (a lone surrogate is OTHER, as in the regexes). `codePointWidth` tells how far to step past it.
 */
export function classAt(text: string, index: number): CharClass {
  const unit = text.charCodeAt(index);
  if (unit < 0xd800 || unit > 0xdbff) return bmpClass(unit);
  const low = text.charCodeAt(index + 1);
  if (!(low >= 0xdc00 && low <= 0xdfff)) return OTHER;
  const codePoint = ((unit - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
  let known = astral.get(codePoint);
  if (known === undefined) {
    known = classify(codePoint);
    astral.set(codePoint, known);
  }
  return known;
}

/** 2 when a surrogate pair starts at `index`, else 1. */
export function codePointWidth(text: string, index: number): 1 | 2 {
  const unit = text.charCodeAt(index);
  if (unit < 0xd800 || unit > 0xdbff) return 1;
  const low = text.charCodeAt(index + 1);
  return low >= 0xdc00 && low <= 0xdfff ? 2 : 1;
}

/** Class of a code unit outside the surrogate range (the caller checks). */
export function bmpClass(unit: number): CharClass {
  const known = bmp[unit] as CharClass | 0;
  if (known !== 0) return known;
  // Lone low surrogates land here too: classify() calls them OTHER, like the regexes.
  const found = classify(unit);
  bmp[unit] = found;
  return found;
}
