import { normalizeForIndex } from '../text/normalize.js';
import { forEachWord, words } from '../text/words.js';
import { WordTable } from '../text/wordTable.js';
import { STOP_WORDS } from '../text/stopWords.js';
import type { Embedder } from './embedder.js';
import { FeatureCounts } from './featureCounts.js';
import { lightStem } from '../text/lightStem.js';

/** Feature weights: whole words carry meaning; character n-grams catch morphology and typos. */
const WORD_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.6;
const CHAR_GRAM_WEIGHT = 0.25;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a, continued from `hash` over `text`: stable across processes and versions. */
function fnv1a(text: string, hash = FNV_OFFSET): number {
  let state = hash;
  for (let i = 0; i < text.length; i += 1) {
    state ^= text.charCodeAt(i);
    state = Math.imul(state, FNV_PRIME);
  }
  return state >>> 0;
}

/** Feature kinds hash with a prefix of their own, so a word and a character gram never meet. */
const WORD_PREFIX = fnv1a('w:');
const BIGRAM_PREFIX = fnv1a('b:');
const GRAM_PREFIX = fnv1a('c:');

/** Word stems of `text` after index normalisation (Arabic letter variants, case, Latin accents). */
export function stems(text: string): string[] {
  return words(normalizeForIndex(text)).map(lightStem);
}

/**
 * What one word adds to a vector, worked out once: its stem's hash, the hash state a bigram starting
 * with it continues from, the hashes of its character 3–5-grams, in the order they are counted, and
 * whether it is a function word. Text repeats its vocabulary, so the stemming (regular expressions,
 * slices) and gram hashing of each occurrence was most of embedding time.
 */
interface WordFeatures {
  stem: string;
  word: number;
  bigramState: number;
  grams: Int32Array;
  stop: boolean;
}

/** Words met, and their features by word id; both start again past 50,000 words. */
const FEATURE_WORDS_LIMIT = 50_000;
let wordTable = new WordTable();
let featuresById: WordFeatures[] = [];

function gramHashes(stem: string): Int32Array {
  // The stem padded as `<stem>`, hashed without building the padded string.
  const length = stem.length + 2;
  const charAt = (i: number): number => (i === 0 ? 0x3c : i === length - 1 ? 0x3e : stem.charCodeAt(i - 1));
  const grams: number[] = [];
  for (let start = 0; start + 3 <= length; start += 1) {
    let state = GRAM_PREFIX;
    for (let size = 1; size <= 5 && start + size <= length; size += 1) {
      state = Math.imul(state ^ charAt(start + size - 1), FNV_PRIME) >>> 0;
      if (size >= 3) grams.push(state);
    }
  }
  return Int32Array.from(grams);
}

function featuresOf(word: string): WordFeatures {
  const stem = lightStem(word);
  return {
    stem,
    word: fnv1a(stem, WORD_PREFIX) | 0,
    bigramState: fnv1a(' ', fnv1a(stem, BIGRAM_PREFIX)),
    grams: gramHashes(stem),
    stop: STOP_WORDS.has(word),
  };
}

/** The features of the word at `start`…`end` of `text`, worked out the first time it is met. */
function featuresAt(text: string, start: number, end: number): WordFeatures {
  let id = wordTable.idOf(text, start, end);
  if (id === featuresById.length) {
    if (id >= FEATURE_WORDS_LIMIT) {
      wordTable = new WordTable();
      featuresById = [];
      id = wordTable.idOf(text, start, end);
    }
    featuresById.push(featuresOf(wordTable.word(id)));
  }
  return featuresById[id]!;
}

/**
 * The words a vector is made of: function words are left out (they are most of any text and, with
 * no corpus statistics to weigh them down, drowned the topic words: measured on the retrieval
 * evaluation), unless the text has nothing else.
 */
function contentWords(text: string): WordFeatures[] {
  const normalized = normalizeForIndex(text);
  const all: WordFeatures[] = [];
  const content: WordFeatures[] = [];
  forEachWord(normalized, (start, end) => {
    const features = featuresAt(normalized, start, end);
    all.push(features);
    if (!features.stop) content.push(features);
  });
  return content.length > 0 ? content : all;
}

/**
 * The embedded default: hashed features of word stems, word bigrams and character 3–5-grams,
 * weighted by sublinear term frequency, signed-hashed into `dimensions` and L2-normalised. It knows
 * no synonyms — lexically close texts are close — but it needs nothing, is deterministic and fast,
 * and works for Arabic and English alike. Any OpenAI-compatible embedding model replaces it.
 */
export function createLocalEmbedder(options: { dimensions?: number } = {}): Embedder {
  const dimensions = options.dimensions ?? 384;
  const name = `local-hashed-ngrams-${dimensions}`;

  /**
   * Features are counted by their 32-bit hash, computed without building their strings (the text
   * of a feature is its kind's prefix and its characters, hashed on from the prefix's state).
   */
  const counts = new FeatureCounts();
  function embedOne(text: string): Float32Array {
    const tokens = contentWords(text);
    for (let index = 0; index < tokens.length; index += 1) {
      const token = tokens[index]!;
      counts.add(token.word, WORD_WEIGHT);
      const next = tokens[index + 1];
      if (next !== undefined) counts.add(fnv1a(next.stem, token.bigramState) | 0, BIGRAM_WEIGHT);
      for (const gram of token.grams) counts.add(gram, CHAR_GRAM_WEIGHT);
    }
    const vector = new Float32Array(dimensions);
    // Hashes come back signed (see FeatureCounts): the sign is the top bit, the bucket is taken of
    // the unsigned value.
    counts.drain((hash, weight, count) => {
      const sign = hash < 0 ? -1 : 1;
      vector[(hash >>> 0) % dimensions]! += sign * weight * (1 + Math.log(count));
    });
    let norm = 0;
    for (const value of vector) norm += value * value;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < dimensions; i += 1) vector[i]! /= norm;
    return vector;
  }

  return {
    name,
    // Each change of features is another space: function words dropped (2); hamza on waw and ya
    // folded by the index normaliser (3); Chinese, Japanese and Thai runs divided into words (4).
    space: `${name}-features-4`,
    dimensions,
    // ~0.06 ms a chunk: less than writing its vector to the read store and reading it back.
    worthStoring: false,
    maxBatch: 256,
    async embed(texts, { signal }) {
      const vectors: Float32Array[] = [];
      for (const text of texts) {
        signal?.throwIfAborted();
        vectors.push(embedOne(text));
      }
      return vectors;
    },
    async probe() {
      return { healthy: true, reason: null };
    },
  };
}

/**
 * The local embedder whose vectors are in `space`, when that is one of its spaces: it needs nothing
 * to be made again, so a collection of its vectors stays searchable after the configuration moved
 * to another model (while that model's collection is built). Null for any other space.
 */
export function localEmbedderFor(space: string): Embedder | null {
  const match = /^local-hashed-ngrams-(\d+)-features-\d+$/.exec(space);
  if (!match) return null;
  const embedder = createLocalEmbedder({ dimensions: Number(match[1]) });
  return embedder.space === space ? embedder : null;
}
