/**
 * Seeded text for the knowledge-base benchmark: a vocabulary of pseudo-words whose frequencies follow
 * Zipf's law (as words of natural text do: a few very common ones, a long tail of rare ones), so BM25
 * has common and rare terms to weigh, and every document has a handful of topic words of its own.
 */
import { seeded as mulberry32 } from '../../test/support/seededRandom.js';
import { SYLLABLES } from '../memory/words.js';

export interface Corpus {
  /** Distinct words, most frequent first. */
  words: string[];
  /** A word drawn with Zipf-Mandelbrot frequencies, from rank `from` on (0: all words). */
  word(from?: number): string;
  random: () => number;
}

/** How many of the most frequent words play the part of stop words (the, of, and …). */
export const STOP_WORDS = 10;

/**
 * mulberry32 (the tests' seeded generator), with a full 2^32 period. (`seeded` in ../memory/words.ts
 * multiplies past 2^53, loses the low bits and falls into a short cycle: it yields only ~2,500
 * distinct words.)
 */
export { mulberry32 };

export function createCorpus(seed: number, size = 4_000): Corpus {
  const random = mulberry32(seed);
  const distinct = new Set<string>();
  while (distinct.size < size) {
    let word = '';
    const syllables = 1 + Math.floor(random() * 4);
    for (let i = 0; i < syllables; i += 1) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    distinct.add(word);
  }
  const words = [...distinct];
  // p(rank) ∝ 1 / (rank + 2.7): Zipf-Mandelbrot with English-like parameters.
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 0; rank < words.length; rank += 1) {
    total += 1 / (rank + 1 + 2.7);
    cumulative.push(total);
  }
  function word(from = 0): string {
    const low = from === 0 ? 0 : cumulative[from - 1]!;
    const target = low + random() * (total - low);
    let lo = from;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  }
  return { words, word, random };
}

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** A chunk of about `words` words in sentences; a share of them are the document's topic words. */
export function chunkText(corpus: Corpus, topic: readonly string[], words = 80): string {
  const count = words - 10 + Math.floor(corpus.random() * 21);
  const sentences: string[] = [];
  let written = 0;
  while (written < count) {
    const length = Math.min(count - written, 6 + Math.floor(corpus.random() * 11));
    const sentence: string[] = [];
    for (let i = 0; i < length; i += 1) {
      sentence.push(
        corpus.random() < 0.12 ? topic[Math.floor(corpus.random() * topic.length)]! : corpus.word(),
      );
    }
    sentences.push(`${capitalise(sentence.join(' '))}.`);
    written += length;
  }
  return sentences.join(' ');
}

/**
 * Distinct search queries of 2–4 words, drawn with the text's frequencies but past the stop words
 * (what people type into a search box), or — `withStopWord` — each with one stop word too.
 */
export function queries(corpus: Corpus, count: number, options: { withStopWord?: boolean } = {}): string[] {
  const found = new Set<string>();
  while (found.size < count) {
    const size = 2 + Math.floor(corpus.random() * 3);
    const words = Array.from({ length: size }, () => corpus.word(STOP_WORDS));
    if (options.withStopWord) words.splice(1, 0, corpus.words[Math.floor(corpus.random() * STOP_WORDS)]!);
    found.add(words.join(' '));
  }
  return [...found];
}
