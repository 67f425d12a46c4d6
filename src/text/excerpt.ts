import { lightStem } from './lightStem.js';
import { normalizeForIndex } from './normalize.js';
import { STOP_WORDS } from './stopWords.js';

/** A passage of a chunk, with where it lies in the chunk's text (UTF-16 offsets, `end` exclusive). */
export interface Excerpt {
  text: string;
  start: number;
  end: number;
  /** Where its first matching word begins (`start` when no term matched). */
  focus: number;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
/** How far before the first matching word an excerpt begins, so that it reads as a phrase. */
const LEAD = 40;

interface Match {
  start: number;
  end: number;
  term: number;
}

/** The query's terms as the index compares them, stop words left out (unless nothing else is left). */
function queryTerms(query: string): string[] {
  const all = [...new Set(normalizeForIndex(query).match(WORD) ?? [])];
  const content = all.filter((term) => !STOP_WORDS.has(term));
  return [...new Set((content.length > 0 ? content : all).map(lightStem))];
}

/**
 * A word matches a term (both light-stemmed: "installing" and "install", "المسوول" and "مسوول") when
 * they are equal, or the word extends a term of 4 letters or more.
 */
const matches = (word: string, term: string): boolean =>
  word === term || (term.length >= 4 && word.startsWith(term));

/**
 * About `size` characters of `text` where the query's terms fall most densely: the window holding
 * the most distinct terms, then the most matches, the earliest of equals — from a little before its
 * first match, at a word boundary. The opening of the text when no term occurs in it.
 */
export function excerptOf(text: string, query: string, size = 200): Excerpt {
  const terms = queryTerms(query);
  const found: Match[] = [];
  for (const word of text.matchAll(WORD)) {
    const folded = lightStem(normalizeForIndex(word[0]));
    const term = terms.findIndex((candidate) => matches(folded, candidate));
    if (term >= 0) found.push({ start: word.index, end: word.index + word[0].length, term });
  }
  if (text.length <= size) return withFocus(trimmed(text, 0, text.length), found[0]?.start ?? null);
  let best: { distinct: number; count: number; from: number } | null = null;
  for (let first = 0; first < found.length; first += 1) {
    const from = found[first]!.start;
    const seen = new Set<number>();
    let count = 0;
    for (let next = first; next < found.length && found[next]!.end - from <= size - LEAD; next += 1) {
      seen.add(found[next]!.term);
      count += 1;
    }
    if (!best || seen.size > best.distinct || (seen.size === best.distinct && count > best.count)) {
      best = { distinct: seen.size, count, from };
    }
  }
  return best ? excerptAt(text, best.from, size) : withFocus(window(text, 0, size), null);
}

/** About `size` characters of `text` from a little before offset `at`, at word boundaries, focused there. */
export function excerptAt(text: string, at: number, size = 200): Excerpt {
  if (text.length <= size) return withFocus(trimmed(text, 0, text.length), at);
  return withFocus(window(text, Math.max(0, at - LEAD), size), at);
}

function window(text: string, anchor: number, size: number): Omit<Excerpt, 'focus'> {
  const start = anchor === 0 ? 0 : wordStartAfter(text, anchor);
  const end = Math.min(text.length, wordEndBefore(text, Math.min(text.length, start + size)));
  return trimmed(text, start, Math.max(end, Math.min(text.length, start + 1)));
}

const withFocus = (excerpt: Omit<Excerpt, 'focus'>, at: number | null): Excerpt => ({
  ...excerpt,
  focus: at === null ? excerpt.start : Math.min(Math.max(at, excerpt.start), excerpt.end),
});

/** The first word start at or after `at` (or `at` itself within a long run with no break). */
function wordStartAfter(text: string, at: number): number {
  const space = text.slice(at, at + 30).search(/\s/);
  return space < 0 ? at : at + space + 1;
}

/** The last word end at or before `at`, unless that would cut more than 30 characters. */
function wordEndBefore(text: string, at: number): number {
  if (at >= text.length || /\s/.test(text.charAt(at))) return at;
  const space = text.slice(Math.max(0, at - 30), at).search(/\s\S*$/);
  return space < 0 ? at : Math.max(0, at - 30) + space;
}

/** `text[start, end)` without the white space at either end, its offsets moved to match. */
function trimmed(text: string, start: number, end: number): Omit<Excerpt, 'focus'> {
  let from = start;
  let to = end;
  while (from < to && /\s/.test(text.charAt(from))) from += 1;
  while (to > from && /\s/.test(text.charAt(to - 1))) to -= 1;
  return { text: text.slice(from, to), start: from, end: to };
}
