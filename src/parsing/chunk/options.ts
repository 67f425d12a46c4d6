import type { ChunkingOptions } from './model.js';

/** Checks sizes and the id prefix; a target above the maximum is lowered to it. */
export function resolveSizes(options: Pick<ChunkingOptions, 'targetWords' | 'maxWords' | 'documentId'>): {
  targetWords: number;
  maxWords: number;
} {
  const maxWords = Math.floor(options.maxWords);
  const targetWords = Math.floor(options.targetWords);
  if (!Number.isFinite(maxWords) || maxWords < 1)
    throw new RangeError(`maxWords must be ≥ 1 (got ${options.maxWords})`);
  if (!Number.isFinite(targetWords) || targetWords < 1) {
    throw new RangeError(`targetWords must be ≥ 1 (got ${options.targetWords})`);
  }
  if (options.documentId === '') throw new RangeError('documentId must not be empty');
  return { targetWords: Math.min(targetWords, maxWords), maxWords };
}
