import { OTHER, classAt, codePointWidth } from './charClass.js';
import { porterStem } from './porterStemmer.js';
import type { TextNormalizer } from './searchTerms.js';

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

/**
 * Calls `visit` with each word of folded text — runs of letters, marks and digits — as its start,
 * its end and a 32-bit FNV-1a hash of its UTF-16 code units, without making a string of it. A scan
 * of character codes (classes looked up once per code point, as the parser's word scanner does)
 * instead of a split on a Unicode property class, which cost a third of keeping the in-memory text
 * index up to date.
 */
export function forEachFoldedWord(
  folded: string,
  visit: (start: number, end: number, hash: number) => void,
): void {
  let start = -1;
  let hash = 0;
  for (let i = 0; i < folded.length;) {
    const width = codePointWidth(folded, i);
    if (classAt(folded, i) !== OTHER) {
      if (start < 0) {
        start = i;
        hash = FNV_OFFSET;
      }
      hash = Math.imul(hash ^ folded.charCodeAt(i), FNV_PRIME);
      if (width === 2) hash = Math.imul(hash ^ folded.charCodeAt(i + 1), FNV_PRIME);
    } else if (start >= 0) {
      visit(start, i, hash >>> 0);
      start = -1;
    }
    i += width;
  }
  if (start >= 0) visit(start, folded.length, hash >>> 0);
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Folded text's words (see `forEachFoldedWord`). */
export function foldedWords(folded: string): string[] {
  const found: string[] = [];
  forEachFoldedWord(folded, (start, end) => found.push(folded.slice(start, end)));
  return found;
}

/** Folded text's tokens, Porter-stemmed as FTS5's `porter` tokenizer stems them. */
export function stemmedTokens(folded: string): string[] {
  return foldedWords(folded).map(porterStem);
}
