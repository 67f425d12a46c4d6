import { normalizeForIndex } from '../../text/normalize.js';
import { splitSentences } from '../../text/sentences.js';
import { countWords, splitByWords, words } from '../../text/words.js';
import { STOP_WORDS } from '../../text/stopWords.js';
import { SummarizerError, type Summarizer } from './summarizer.js';

/**
 * The local, deterministic summarizer: picks the sentences that carry the document's most frequent
 * content words and gives them back in their original order, within `maxWords`.
 *
 * Text is read as Markdown-ish prose: headings, table rows and image lines are context, not sentences,
 * so they are left out; list items count as sentences. Sentences split on `. ! ? … ؟ ۔`. A sentence's
 * score is the sum of its content words' document frequencies over the square root of its length (long
 * sentences are not favoured for being long), with a small bonus for the opening sentences, where
 * documents tend to state their subject. Ties go to the earlier sentence.
 */
export function createExtractiveSummarizer(): Summarizer {
  return {
    summarize(text, options) {
      if (options.signal.aborted) return Promise.reject(new SummarizerError('aborted', 'summary aborted'));
      return Promise.resolve(extractiveSummary(text, options.maxWords));
    },
  };
}

/** The extractive summary itself, synchronous (see `createExtractiveSummarizer`). */
export function extractiveSummary(text: string, maxWords: number): string {
  const budget = Math.max(1, Math.floor(maxWords));
  const sentences = proseLines(text).flatMap((line) => splitSentences(line));
  if (sentences.length === 0) return '';

  const termsOf = sentences.map(contentTerms);
  const frequency = new Map<string, number>();
  for (const terms of termsOf) for (const term of terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);

  const scored = sentences.map((sentence, index) => {
    const terms = termsOf[index] ?? [];
    const weight = terms.reduce((sum, term) => sum + (frequency.get(term) ?? 0), 0);
    const lead = index < 3 ? 1.15 : 1;
    return {
      index,
      sentence,
      words: countWords(sentence),
      score: (weight / Math.sqrt(terms.length + 1)) * lead,
    };
  });
  const ranked = [...scored].sort((a, b) => b.score - a.score || a.index - b.index);

  const chosen: typeof scored = [];
  let used = 0;
  for (const candidate of ranked) {
    if (candidate.words === 0 || used + candidate.words > budget) continue;
    chosen.push(candidate);
    used += candidate.words;
  }
  if (chosen.length === 0) {
    // Even the best sentence is longer than the budget: its first words stand in for it.
    const best = ranked.find((candidate) => candidate.words > 0);
    return best ? `${splitByWords(best.sentence, budget)[0] ?? ''}…` : '';
  }
  return chosen
    .sort((a, b) => a.index - b.index)
    .map((candidate) => candidate.sentence)
    .join(' ');
}

/** Paragraphs and list items of Markdown-ish text, without headings, table rows, images or fences. */
function proseLines(text: string): string[] {
  const paragraphs: string[] = [];
  let current: string[] = [];
  let fenced = false;
  const flush = (): void => {
    if (current.length > 0) paragraphs.push(current.join(' '));
    current = [];
  };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (/^(```|~~~)/.test(line)) {
      flush();
      fenced = !fenced;
      continue;
    }
    const context = !line || /^#{1,6}\s/.test(line) || line.startsWith('|') || /^\[Image p\.\d+:/.test(line);
    if (fenced || context) {
      flush();
      continue;
    }
    const item = /^(?:[-*+]|\d+[.)])\s+/.exec(line);
    if (item) {
      flush();
      paragraphs.push(line.slice(item[0].length));
      continue;
    }
    // Hard-wrapped lines of one paragraph are joined so sentences are not cut at line ends.
    current.push(line);
  }
  flush();
  return paragraphs;
}

function contentTerms(sentence: string): string[] {
  return words(normalizeForIndex(sentence)).filter(
    (word) => word.length > 1 && !STOP_WORDS.has(word) && !/^\p{N}/u.test(word),
  );
}
