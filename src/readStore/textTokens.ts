import { porterStem } from './porterStemmer.js';
import type { TextNormalizer } from './readStore.js';

/**
 * Lower case, compatibility forms (ligatures, full-width letters) and Latin/Greek/Cyrillic accents
 * removed, as the embedded store's tokenizer (`unicode61 remove_diacritics 2`) does. Arabic marks are
 * left to the normaliser, which knows the language.
 */
export function foldCase(text: string): string {
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

/** Folded text's words: runs of letters, marks and digits. */
export function foldedWords(folded: string): string[] {
  return folded.split(/[^\p{L}\p{M}\p{N}]+/u).filter((token) => token.length > 0);
}

/** Folded text's tokens, Porter-stemmed as FTS5's `porter` tokenizer stems them. */
export function stemmedTokens(folded: string): string[] {
  return foldedWords(folded).map(porterStem);
}
