/**
 * Token counts for the local models, which have no tokenizer of their own: each word counts 1.3
 * tokens (about what BPE tokenizers give for English; Arabic runs higher) and each punctuation mark
 * one. An estimate, documented as such; remote models report their own counts.
 */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const PUNCTUATION = /[^\p{L}\p{M}\p{N}\s]/gu;

export function countTokens(text: string): number {
  const words = text.match(WORD)?.length ?? 0;
  const marks = text.match(PUNCTUATION)?.length ?? 0;
  return Math.ceil(words * 1.3) + marks;
}
