import { createRequire } from 'node:module';

/**
 * Token counts for the local models, which have no tokenizer of their own: the o200k BPE
 * tokenizer (`gpt-tokenizer`, what current OpenAI models use), so the counts the local mode reports
 * are real counts of a real tokenizer rather than a guess from words. Remote models report their own.
 * Its tables take ~0.12 s and ~60 MB to load, so they are loaded on the first count, not at start-up
 * (a CLI command or a process that never answers never pays for them).
 */
type Counter = (text: string) => number;

let counter: Counter | null = null;

function load(): Counter {
  const require = createRequire(import.meta.url);
  const encoding = require('gpt-tokenizer/encoding/o200k_base') as { countTokens: Counter };
  return encoding.countTokens;
}

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  counter ??= load();
  return counter(text);
}
