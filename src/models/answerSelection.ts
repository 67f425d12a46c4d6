import { STOP_WORDS } from '../text/stopWords.js';
import { splitSentences } from '../text/sentences.js';
import type { Passage } from './groundedPrompt.js';
import { stems } from './localEmbedder.js';

/** A line or sentence of a source that may answer, and where it stands. */
interface Candidate {
  text: string;
  source: number;
  order: number;
  terms: ReadonlySet<string>;
  words: number;
}

/** What a question asks for, when its wording says: a version, a number, a date, a command, a name, what something is. */
type Asked = 'version' | 'number' | 'date' | 'command' | 'name' | 'definition' | null;

const ASKED: ReadonlyArray<[Exclude<Asked, null>, RegExp, RegExp]> = [
  [
    'version',
    /\b(?:what|which)\b.{0,30}\bversions?\b|\bversions? of\b|\brequires?\b.{0,20}\bversion|أي إصدار|ما إصدار|إصدار/iu,
    /\bv?\d+\.\d+(?:\.\d+)?(?:[-+.]\w+)?\b|\b\d+\.x\b/i,
  ],
  ['number', /\bhow (?:many|much|long|big|large)\b|\bnumber of\b|\blimit\b|كم /iu, /\d/],
  [
    'date',
    /\bwhen\b|\bwhat (?:year|date|day)\b|\bsince\b|متى/iu,
    /\b(?:1[89]|20)\d\d\b|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}/,
  ],
  [
    'command',
    /\bhow (?:do|can|should|to)\b.{0,25}\b(?:install|run|start|set ?up|add|build|test|deploy|configure|enable|use)\b|\bcommand\b|كيف (?:أثبت|اثبت|أشغل|اشغل)|تثبيت/iu,
    /(?:^|\s)\$\s|\b(?:npm|npx|yarn|pnpm|pip3?|apt(?:-get)?|brew|docker|git|node|python3?|go|cargo|make)\s+\w/,
  ],
  ['name', /\bwho\b|\bwhat is (?:the )?name\b|من هو|من هي|ما اسم/iu, /\b\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+)*/u],
  // "What is X?": the sentence that says what X is.
  [
    'definition',
    /^\s*(?:what|who) (?:is|are) (?!the (?:name|version|date|number|limit))|^ما (?:هو|هي)/iu,
    /\b(?:is|are)\s+(?:an?|the|one)\b|هو|هي/iu,
  ],
];

function askedFor(question: string): Asked {
  for (const [kind, asks] of ASKED) if (asks.test(question)) return kind;
  return null;
}

const answerShape = (kind: Asked): RegExp | null => ASKED.find(([name]) => name === kind)?.[2] ?? null;

/** A source's lines and sentences: a line of a list, a table or code is a unit of its own. */
function candidatesOf(passage: Passage, source: number): Candidate[] {
  const units = passage.text
    .split('\n')
    .map((line) => line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim())
    .filter(
      (line) => line && !/^#{1,6}\s/.test(line) && !/^(?:```|~~~|---+|\|?[\s:-]+\|[\s|:-]*)$/.test(line),
    )
    .flatMap((line) => splitSentences(line).map((sentence) => sentence.trim()))
    .filter((unit) => /\p{L}.*\p{L}/u.test(unit));
  return units.map((text, order) => {
    const all = stems(text);
    return { text, source, order, terms: new Set(all), words: all.length };
  });
}

/** The question's terms worth matching: stems of two letters or more, function words left out. */
function askedTerms(question: string): string[] {
  const all = [...new Set(stems(question))].filter((term) => term.length >= 2);
  return all.filter((term) => !STOP_WORDS.has(term));
}

/** Code rather than prose: a comment, a declaration, a statement's end, an arrow, a call. */
const CODE =
  /^\s*(?:\/\/|\/\*|\*\s|#!|import\s|export\s|const\s|let\s|var\s|function\s|class\s|return\s|[{}])|[;{]\s*$|=>|\w\(['"`)]/;

/**
 * Whether a unit holds a term: the same stem, or one extending the other by a few letters when both
 * have four or more ("requir" and "require": the light stemmer leaves some forms apart).
 */
function holds(terms: ReadonlySet<string>, term: string): boolean {
  if (terms.has(term)) return true;
  if (term.length < 4) return false;
  for (const candidate of terms) {
    if (candidate.length < 4) continue;
    const [short, long] = candidate.length <= term.length ? [candidate, term] : [term, candidate];
    if (long.length - short.length <= 2 && long.startsWith(short)) return true;
  }
  return false;
}

/** The least share of the question's (weighted) terms an answer must hold. */
const MIN_COVERAGE = 0.3;
/** Units an answer quotes at most. */
const MAX_UNITS = 3;

/**
 * The units of the sources that answer `question`, best first, each with its
 * source's index; empty when none does (the answer is then an abstention). A unit is scored by the
 * share of the question's terms it holds (rarer terms weigh more), shortened units preferred (a long
 * list line holds many words by chance), raised when it has the shape the question asks for (a
 * version number, a count, a date, a command, a name), and slightly by its source's rank. The best
 * unit is kept with up to two more of nearly its score (and its shape), and with the unit right after
 * it when that one has the asked-for shape (the command after "Using npm:"). Code is an answer only
 * to a question asking for a command.
 */
export function selectAnswer(question: string, passages: readonly Passage[]): Candidate[] {
  const asked = askedTerms(question);
  if (asked.length === 0) return [];
  const candidates = passages.flatMap(candidatesOf);
  const frequency = new Map<string, number>();
  for (const candidate of candidates) {
    for (const term of candidate.terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  }
  const weight = (term: string): number => 1 / Math.log(2 + (frequency.get(term) ?? 0));
  const total = asked.reduce((sum, term) => sum + weight(term), 0);
  const kind = askedFor(question);
  const shape = answerShape(kind);
  const wantsCode = kind === 'command';
  const scored = candidates.map((candidate) => {
    const coverage =
      asked.reduce((sum, term) => sum + (holds(candidate.terms, term) ? weight(term) : 0), 0) / total;
    const length = 1 / (1 + Math.max(0, candidate.words - 30) / 60);
    // A line of code answers only a question asking for a command (and then it is the answer).
    const prose = wantsCode || !CODE.test(candidate.text) ? 1 : 0.5;
    const fits = shape?.test(candidate.text) ? 0.25 : 0;
    const rank = 0.05 / (1 + candidate.source);
    return { candidate, coverage, score: coverage * length * prose + (coverage > 0 ? fits + rank : 0) };
  });
  const eligible = scored
    .filter((entry) => entry.coverage >= MIN_COVERAGE && (wantsCode || !CODE.test(entry.candidate.text)))
    .sort((a, b) => b.score - a.score);
  const best = eligible[0];
  if (!best) return [];
  const chosen = new Set([best.candidate]);
  for (const entry of eligible.slice(1)) {
    if (chosen.size >= MAX_UNITS) break;
    // Of the asked-for shape too, when the best has it: "What is X?" quotes what X is, not about X.
    const sameShape = !shape?.test(best.candidate.text) || shape.test(entry.candidate.text);
    if (entry.score >= 0.8 * best.score && sameShape) chosen.add(entry.candidate);
  }
  const next = candidates.find(
    (candidate) => candidate.source === best.candidate.source && candidate.order === best.candidate.order + 1,
  );
  if (next && shape?.test(next.text) && !shape.test(best.candidate.text) && chosen.size < MAX_UNITS)
    chosen.add(next);
  return [...chosen];
}
