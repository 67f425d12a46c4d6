/**
 * Search terms as both read-store adapters index and query them, and the stop words compared with
 * them after the same normalisation.
 */

/** Turns text into what is indexed and compared (e.g. Arabic letter variants unified). */
export type TextNormalizer = (text: string) => string;

/**
 * Stop words as `searchTerms` gives them: the list (written in the form the default normaliser
 * produces) passed through the store's own normaliser, so that they compare after the same pipeline.
 */
export function normalizedStopWords(words: Iterable<string>, normalize: TextNormalizer): ReadonlySet<string> {
  return new Set([...words].flatMap((word) => searchTerms(word, normalize)));
}

/**
 * The terms worth matching in `any` mode: without stop words, unless nothing else is left. A stop word
 * matches most documents, so it made the index score most of the collection for a term whose weight
 * (inverse document frequency) is close to nothing; a query of stop words alone keeps them.
 */
export function contentTerms(terms: readonly string[], stopWords: ReadonlySet<string>): string[] {
  const content = terms.filter((term) => !stopWords.has(term));
  return content.length > 0 ? content : [...terms];
}

/** Splits search text into terms the way both adapters index it: letters and digits, normalised. */
export function searchTerms(text: string, normalize: TextNormalizer): string[] {
  return normalize(text)
    .toLowerCase()
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((term) => term.length > 0)
    .slice(0, 32);
}
