import { porterStem } from './porterStemmer.js';
import type { TextNormalizer } from './readStore.js';

const NON_ASCII = /[^ -~\t\n\r]/;

/**
 * Lower case, compatibility forms (ligatures, full-width letters) and Latin/Greek/Cyrillic accents
 * removed, as the embedded store's tokenizer (`unicode61 remove_diacritics 2`) does. Arabic marks are
 * left to the normaliser, which knows the language. Printable ASCII only needs its case folded.
 */
export function foldCase(text: string): string {
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC');
}

/** Text as both search methods see it: the configured normaliser, then `foldCase`. */
export function createTextFolding(normalize: TextNormalizer): (text: string) => string {
  return (text) => foldCase(normalize(text));
}

const WORD_CHARACTER = /[\p{L}\p{M}\p{N}]/u;
/** Whether each BMP code unit is a letter, mark or digit: 0 not known yet, 1 yes, 2 no. */
const bmpClass = new Uint8Array(0x10000);

function isWordUnit(code: number): boolean {
  let known = bmpClass[code]!;
  if (known === 0) {
    known = WORD_CHARACTER.test(String.fromCharCode(code)) ? 1 : 2;
    bmpClass[code] = known;
  }
  return known === 1;
}

/**
 * Folded text's words: runs of letters, marks and digits. A scan of character codes (ASCII decided
 * by range, other code units looked up once in a table) instead of a split on a Unicode property
 * class, which cost a third of keeping the in-memory text index up to date.
 */
export function foldedWords(folded: string): string[] {
  const found: string[] = [];
  let start = -1;
  for (let i = 0; i < folded.length; i += 1) {
    const code = folded.charCodeAt(i);
    let word: boolean;
    let width = 1;
    if (code < 0x80) {
      word =
        (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a);
    } else if (code >= 0xd800 && code <= 0xdbff && i + 1 < folded.length) {
      const low = folded.charCodeAt(i + 1);
      const paired = low >= 0xdc00 && low <= 0xdfff;
      word = paired && WORD_CHARACTER.test(folded.slice(i, i + 2));
      width = paired ? 2 : 1;
    } else {
      word = code < 0xd800 || code > 0xdfff ? isWordUnit(code) : false;
    }
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      found.push(folded.slice(start, i));
      start = -1;
    }
    i += width - 1;
  }
  if (start >= 0) found.push(folded.slice(start));
  return found;
}

/** Folded text's tokens, Porter-stemmed as FTS5's `porter` tokenizer stems them. */
export function stemmedTokens(folded: string): string[] {
  return foldedWords(folded).map(porterStem);
}
