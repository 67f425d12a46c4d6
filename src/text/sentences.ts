/**
 * Sentence boundaries for English, Arabic and other languages using `. ! ? … ؟ ۔ 。`. Used to split
 * oversized paragraphs when chunking and to pick sentences when summarising.
 *
 * A boundary is terminal punctuation (with closing quotes or brackets) followed by white space —
 * so "3.14" and "example.com" never split — except after common abbreviations and single initials
 * ("e.g.", "Dr.", "J. Smith", "U.S."), and except when a lower-case Latin letter follows (a sentence
 * does not start in lower case; Arabic has no case, so Arabic always splits).
 */
const BOUNDARY = /[.!?…؟۔。！？]+["'”’»)\]]*\s+/gu;

const ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'etc',
  'vs',
  'cf',
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'jr',
  'sr',
  'no',
  'fig',
  'figs',
  'vol',
  'pp',
  'p',
  'al',
  'approx',
  'dept',
  'inc',
  'ltd',
  'co',
  'corp',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
]);

/** Offsets where sentences start (always includes 0 for non-blank text). */
function sentenceStarts(text: string): number[] {
  const starts = [0];
  BOUNDARY.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = BOUNDARY.exec(text)) !== null) {
    const end = match.index + match[0].length;
    if (end >= text.length) break;
    if (match[0].startsWith('.') && isAbbreviation(text, match.index)) continue;
    if (/^\p{Ll}/u.test(text.slice(end, end + 1)) && /^\p{Script=Latin}/u.test(text.charAt(end))) continue;
    starts.push(end);
  }
  return starts;
}

/** The sentences of `text`, trimmed, in order; their concatenation keeps every word. */
export function splitSentences(text: string): string[] {
  const starts = sentenceStarts(text);
  return starts
    .map((start, i) => text.slice(start, starts[i + 1] ?? text.length).trim())
    .filter((sentence) => sentence.length > 0);
}

function isAbbreviation(text: string, dotIndex: number): boolean {
  const before = /([\p{L}.]+)$/u.exec(text.slice(Math.max(0, dotIndex - 12), dotIndex));
  if (!before?.[1]) return false;
  const token = before[1].toLowerCase();
  // Single initials ("J.") and dotted acronyms ("U.S") are not sentence ends.
  if (/^\p{L}$/u.test(token) || /^(\p{L}\.)+\p{L}$/u.test(token)) return true;
  return ABBREVIATIONS.has(token);
}
