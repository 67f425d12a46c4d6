/**
 * The form of text that is indexed and compared (search, duplicate detection), never shown.
 *
 * NFKC (presentation forms, ligatures, full-width letters), lower case, Latin diacritics folded
 * ("Café" → "cafe"; only marks on Latin letters, so Devanagari vowel signs and the like survive), and
 * Arabic normalisation: alef variants أ إ آ ٱ → ا, hamza on waw and ya ؤ ئ → و ي (the hamza goes, its
 * seat stays, as on alef: "مسؤول" meets "مسوول" typed without it; the spelling "مسئول" becomes
 * "مسيول" and does not meet them), alef maqsura ى → ي, ta marbuta ة → ه, Persian
 * yeh/keheh ی ک → ي ك, tatweel and harakat (U+064B–U+065F, U+0670, Quranic marks) removed,
 * Arabic-Indic digits → ASCII digits. Invisible format characters go and white space collapses.
 */
import { collapseWhitespace, stripInvisible } from './whitespace.js';

const ARABIC_MARKS = /[\u0610-\u061A\u064B-\u065F\u0670\u06D6-\u06DC\u06DF-\u06E8\u06EA-\u06ED\u0640]/g;
const ALEF_VARIANTS = /[\u0623\u0625\u0622\u0671]/g;
const LATIN_WITH_MARKS = /(\p{Script=Latin})[\u0300-\u036F]+/gu;
const ARABIC_INDIC_DIGIT = /[\u0660-\u0669\u06F0-\u06F9]/g;

/** Normalises `text` for indexing and comparison (see the module comment). */
export function normalizeForIndex(text: string): string {
  return collapseWhitespace(
    foldLatin(normalizeArabicLetters(stripInvisible(text).normalize('NFKC').toLowerCase())),
  );
}

/** The Arabic part of `normalizeForIndex`, alone. */
export function normalizeArabicLetters(text: string): string {
  if (!/[\u0600-\u06FF]/.test(text)) return text;
  return text
    .replace(ARABIC_MARKS, '')
    .replace(ALEF_VARIANTS, '\u0627')
    .replace(/\u0624/g, '\u0648')
    .replace(/\u0626/g, '\u064A')
    .replace(/\u0649/g, '\u064A')
    .replace(/\u0629/g, '\u0647')
    .replace(/\u06CC/g, '\u064A')
    .replace(/\u06A9/g, '\u0643')
    .replace(ARABIC_INDIC_DIGIT, (digit) => String((digit.charCodeAt(0) & 0xf) % 10));
}

function foldLatin(text: string): string {
  // Decomposition first: "é" is one code point until NFD splits off its accent.
  if (!/[^\p{ASCII}]/u.test(text)) return text;
  return text.normalize('NFD').replace(LATIN_WITH_MARKS, '$1').normalize('NFC');
}
