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
 * Calls `visit` with the start and end of each word of folded text: runs of letters, marks and
 * digits. A scan of character codes (classes looked up once per code point, as the parser's word
 * scanner does) instead of a split on a Unicode property class, which cost a third of keeping the
 * in-memory text index up to date.
 */
export function forEachFoldedWord(folded: string, visit: (start: number, end: number) => void): void {
  let start = -1;
  for (let i = 0; i < folded.length; i += codePointWidth(folded, i)) {
    if (classAt(folded, i) !== OTHER) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      visit(start, i);
      start = -1;
    }
  }
  if (start >= 0) visit(start, folded.length);
}

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
