/**
 * Word counting and word-boundary splitting, shared by cleaning, chunking and summarising.
 *
 * A word is a run starting with a letter (letters, combining marks, digits, apostrophes and inner
 * hyphens may follow: "well-known", "don't", "COVID-19", Arabic with harakat) or a number (with
 * decimal/thousand separators: "3.14", "1,000", "3rd"). Markdown punctuation (`#`, `|`, `---`) is not
 * a word, so rendered headings and tables count only their text. A regex beats `Intl.Segmenter` by far
 * on long strings in Node 20; the price is that scripts written without spaces (Chinese, Japanese,
 * Thai) count one word per run.
 */
const WORD = /\p{L}[\p{L}\p{M}\p{N}'’-]*|\p{N}[\p{N}\p{L}\p{M}]*(?:[.,:/]\p{N}+)*/gu;

/** Number of words in `text` (see the module comment for what a word is). */
export function countWords(text: string): number {
  WORD.lastIndex = 0;
  let count = 0;
  // `test` finds the same matches as `exec` without building a result array for each (twice as fast).
  while (WORD.test(text)) count += 1;
  return count;
}

/** The words of `text`, in order. */
export function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** Start and end offsets of each word of `text`. */
export function wordSpans(text: string): Array<[number, number]> {
  WORD.lastIndex = 0;
  const spans: Array<[number, number]> = [];
  let match: RegExpExecArray | null;
  while ((match = WORD.exec(text)) !== null) spans.push([match.index, match.index + match[0].length]);
  return spans;
}

/**
 * Cuts `text` into consecutive slices of at most `size` words, cutting only between words (at the
 * white space there, so an opening bracket stays with its word), so the word counts of the slices add
 * up to the word count of `text`. Slices are trimmed; a blank text gives none.
 */
export function splitByWords(text: string, size: number): string[] {
  const limit = Math.max(1, Math.floor(size));
  const spans = wordSpans(text);
  if (spans.length <= limit) return text.trim() ? [text.trim()] : [];
  const slices: string[] = [];
  let from = 0;
  for (let i = limit; i < spans.length; i += limit) {
    const previousEnd = spans[i - 1]?.[1] ?? from;
    const start = spans[i]?.[0] ?? text.length;
    const gap = text.slice(previousEnd, start);
    const space = gap.search(/\s/u);
    const to = space >= 0 ? previousEnd + space : start;
    slices.push(text.slice(from, to).trim());
    from = to;
  }
  slices.push(text.slice(from).trim());
  return slices.filter((slice) => slice.length > 0);
}
