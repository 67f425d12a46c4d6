import { normalizeForIndex } from '../parsing/clean/normalize.js';
import { words } from '../parsing/clean/words.js';
import { STOP_WORDS } from '../parsing/summarize/stopWords.js';
import type { Embedder } from './embedder.js';
import { lightStem } from './lightStem.js';

/** Feature weights: whole words carry meaning; character n-grams catch morphology and typos. */
const WORD_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.6;
const CHAR_GRAM_WEIGHT = 0.25;

/** 32-bit FNV-1a: fast, stable across processes and versions (the vectors are cached by name). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Word stems of `text` after index normalisation (Arabic letter variants, case, Latin accents). */
export function stems(text: string): string[] {
  return words(normalizeForIndex(text)).map(lightStem);
}

/**
 * The stems a vector is made of: function words are left out (they are most of any text and, with
 * no corpus statistics to weigh them down, drowned the topic words: measured on the retrieval
 * evaluation), unless the text has nothing else.
 */
function contentStems(text: string): string[] {
  const all = words(normalizeForIndex(text));
  const content = all.filter((word) => !STOP_WORDS.has(word));
  return (content.length > 0 ? content : all).map(lightStem);
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

  function embedOne(text: string): Float32Array {
    const counts = new Map<string, { weight: number; count: number }>();
    const add = (feature: string, weight: number): void => {
      const entry = counts.get(feature);
      if (entry) entry.count += 1;
      else counts.set(feature, { weight, count: 1 });
    };
    const tokens = contentStems(text);
    tokens.forEach((token, index) => {
      add(`w:${token}`, WORD_WEIGHT);
      const next = tokens[index + 1];
      if (next !== undefined) add(`b:${token} ${next}`, BIGRAM_WEIGHT);
      const padded = `<${token}>`;
      for (let size = 3; size <= 5; size += 1) {
        for (let start = 0; start + size <= padded.length; start += 1) {
          add(`c:${padded.slice(start, start + size)}`, CHAR_GRAM_WEIGHT);
        }
      }
    });
    const vector = new Float32Array(dimensions);
    for (const [feature, { weight, count }] of counts) {
      const hash = fnv1a(feature);
      const sign = hash & 0x80000000 ? -1 : 1;
      vector[hash % dimensions]! += sign * weight * (1 + Math.log(count));
    }
    let norm = 0;
    for (const value of vector) norm += value * value;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < dimensions; i += 1) vector[i]! /= norm;
    return vector;
  }

  return {
    name,
    // The features changed once (function words dropped): vectors of the first kind are another space.
    space: `${name}-features-2`,
    dimensions,
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
