import { normalizeForIndex } from '../text/normalize.js';

/** A leading section number ("8.1.", "Chapter 8.", "فصل 10.") is not part of a title. */
const SECTION_NUMBER =
  /^(?:(?:chapter|part|appendix|section|الفصل|فصل|الباب|باب|ملحق|الملحق|جزء|الجزء) )?\d+(?:\.\d+)*\.? /u;

/**
 * A title as an exact title lookup compares it: normalised as the index normalises text (case,
 * Arabic letter variants, diacritics), its section number and punctuation gone.
 */
export function titleKey(text: string): string {
  return normalizeForIndex(text)
    .replace(SECTION_NUMBER, '')
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The candidates that stand in a section whose heading is the query itself, in their order:
 * someone typing a heading they saw to find it again. The section may be the chunk's own or one it
 * lies within (a chunk of a subsection is headed by the subsection). Too short a query (under three
 * characters) looks up nothing.
 */
export function exactTitleMatches<T extends { heading: string; sectionPath?: readonly string[] }>(
  query: string,
  candidates: readonly T[],
): T[] {
  const wanted = titleKey(query);
  if (wanted.length < 3) return [];
  // The chunks of one document share their section path: each heading is normalised once.
  const matches = new Map<string, boolean>();
  const isWanted = (heading: string): boolean => {
    let match = matches.get(heading);
    if (match === undefined) matches.set(heading, (match = titleKey(heading) === wanted));
    return match;
  };
  return candidates.filter((candidate) =>
    [candidate.heading, ...(candidate.sectionPath ?? [])].some(isWanted),
  );
}
