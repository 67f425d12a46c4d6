import { STOP_WORDS } from '../text/stopWords.js';
import { splitSentences } from '../text/sentences.js';
import type { Passage } from './groundedPrompt.js';
import { lightStem } from '../text/lightStem.js';
import { normalizeForIndex } from '../text/normalize.js';
import { words } from '../text/words.js';
import { stems } from './localEmbedder.js';

/** A line or sentence of a source that may answer, and where it stands. */
interface Candidate {
  text: string;
  source: number;
  order: number;
  terms: ReadonlySet<string>;
  words: number;
  /** Stems of the heading of the section it stands in. */
  heading: ReadonlySet<string>;
  /** Its place in that section (0: the first sentence after the heading). */
  position: number;
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

/**
 * The words that name what a question asks for ("which version", "what year"): a unit of that shape
 * holds them, though it says "v18.0.0" rather than "version".
 */
const KIND_WORDS: Partial<Record<Exclude<Asked, null>, string>> = {
  version: 'version versions release إصدار الإصدار نسخة',
  date: 'date year day تاريخ سنة عام',
  number: 'number count many much عدد',
};

const kindTerms = (kind: Asked): ReadonlySet<string> =>
  new Set(termsOf(kind ? (KIND_WORDS[kind] ?? '') : ''));

const HEADING_LINE = /^#{1,6}\s+(.*?)[\s#]*$/;
const FENCE_OR_RULE = /^(?:```|~~~|---+|\|?[\s:-]+\|[\s|:-]*)$/;
/**
 * A pointer to another section quoting its title ("see Section 7.4, “What is a control file?”"):
 * it repeats a question's words without answering it, so its words are not matched.
 */
const CROSS_REFERENCE =
  /\b(?:section|chapter|appendix|§)\s*[\d.]+\s*,?\s*(?:“[^”]*”|"[^"]*"|«[^»]*»)|(?:القسم|الفصل)\s*[\d.]+\s*,?\s*(?:“[^”]*”|"[^"]*"|«[^»]*»)/giu;

/**
 * A source's lines and sentences, each with the heading of the section it stands in: a line of a
 * list, a table or code is a unit of its own; heading lines open a section (the source's own title
 * names the first) and are not units.
 */
function candidatesOf(passage: Passage, source: number): Candidate[] {
  const titles = passage.title.split(' › ');
  let heading = new Set(termsOf(titles[titles.length - 1] ?? ''));
  let position = 0;
  const units: Candidate[] = [];
  for (const raw of passage.text.split('\n')) {
    const line = raw.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim();
    const opens = HEADING_LINE.exec(line);
    if (opens) {
      heading = new Set(termsOf(opens[1]!));
      position = 0;
      continue;
    }
    if (!line || FENCE_OR_RULE.test(line)) continue;
    for (const sentence of splitSentences(line)) {
      const text = sentence.trim();
      if (!/\p{L}.*\p{L}/u.test(text)) continue;
      const all = termsOf(text.replace(CROSS_REFERENCE, ' '));
      units.push({
        text,
        source,
        order: units.length,
        terms: new Set(all),
        words: all.length,
        heading,
        position,
      });
      position += 1;
    }
  }
  return units;
}

/** The question's terms worth matching: stems of two letters or more, function words left out. */
function askedTerms(question: string): string[] {
  const content = words(normalizeForIndex(question)).filter(
    (word) => !STOP_WORDS.has(word) && !QUESTION_WORDS.has(word),
  );
  const terms = content.map((word) => termOf(lightStem(word)));
  return [...new Set(terms)].filter((term) => term.length >= 2 && !STOP_WORDS.has(term));
}

/** Words that frame a question rather than name what it asks about (beyond the stop words). */
const QUESTION_WORDS: ReadonlySet<string> = new Set('اي لماذا هل كم يمكن يمكنني استطيع اريد افعل'.split(' '));

/**
 * An Arabic word's clitics (the conjunctions و and ف, the prepositions ب, ك and ل, with or without
 * the article) come off before matching, so that "بالكتب" and "الكتب" meet at "كتب"; the light
 * stemmer only takes off the article. Only when three letters or more remain.
 */
const ARABIC_CLITICS = /^(?:وبال|وال|فال|بال|كال|لل|ال|و|ف|ب|ك|ل)(?=\p{Script=Arabic}{3})/u;

const termOf = (stem: string): string => stem.replace(ARABIC_CLITICS, '');

/** The terms of a text as `askedTerms` gives a question's. */
const termsOf = (text: string): string[] => stems(text).map(termOf);

/** Code rather than prose: a comment, a declaration, a statement's end, an arrow, a call. */
const CODE =
  /^\s*(?:\/\/|\/\*|\*\s|#!|import\s|export\s|const\s|let\s|var\s|function\s|class\s|return\s|[{}])|[;{]\s*$|=>|\w\(['"`)]/;

/**
 * How far a unit holds a term: 1 for the same stem, or one extending the other by a few letters when
 * both have four or more ("requir" and "require": the light stemmer leaves some forms apart); 0.8 for
 * an Arabic term of the same consonant skeleton ("أختار" and "اختيار", "أثبت" and "تثبيت": a verb
 * and its noun); else 0.
 */
function holds(terms: ReadonlySet<string>, term: string): number {
  if (terms.has(term)) return 1;
  if (term.length < 4 && !ARABIC_WORD.test(term)) return 0;
  let found = 0;
  const bones = ARABIC_WORD.test(term) ? skeleton(term) : null;
  for (const candidate of terms) {
    if (term.length >= 4 && candidate.length >= 4) {
      const [short, long] = candidate.length <= term.length ? [candidate, term] : [term, candidate];
      if (long.length - short.length <= 2 && long.startsWith(short)) return 1;
    }
    if (bones && bones.length >= 3 && skeleton(candidate) === bones) found = 0.8;
  }
  return found;
}

const ARABIC_WORD = /^\p{Script=Arabic}+$/u;

/**
 * An Arabic term without the prefix of an imperfect verb (أ ت ي ن) and without its long vowels after
 * the first letter: a verb, its verbal noun and a broken plural often share it.
 */
function skeleton(term: string): string {
  const bare = term.length >= 4 ? term.replace(/^[اتين](?=\p{Script=Arabic}{3})/u, '') : term;
  return bare.charAt(0) + bare.slice(1).replace(/[اوي]/g, '');
}

/**
 * The least confidence an answer needs, below which the answerer abstains. Calibrated on the
 * calibration half of the answer evaluation (`npm run eval:answers`): the highest abstention on
 * unanswerable questions that keeps false abstention at 10 % or less; see docs/benchmarks.md.
 */
export const MIN_CONFIDENCE = 0.56;
/** The least relevance of a unit quoted beside the best one. */
const MIN_RELEVANCE = 0.3;
/** Units an answer quotes at most. */
const MAX_UNITS = 3;

/** How much a section's opening sentences owe to its heading asking the question (by place). */
const OPENING = [1, 0.8, 0.6, 0.6];

/** The units that answer a question, best first, and how sure the selection is of them (0–1). */
export interface Selection {
  units: Candidate[];
  confidence: number;
}

/**
 * The units of the sources that answer `question`, best first, each with its source's index; none
 * when the confidence is below MIN_CONFIDENCE (the answer is then an abstention).
 *
 * A unit's relevance is the share of the question's terms it holds (rarer terms weigh more), raised
 * when it opens a section whose heading holds them: an FAQ's heading asks the question and the
 * sentences after it answer without repeating it. Its score adds a preference for short units (a
 * long list line holds many words by chance), the shape the question asks for (a version number, a
 * count, a date, a command, a name) and its source's rank, which breaks near ties: retrieval ranked
 * the whole passages with both keyword and meaning evidence, which a unit's own terms do not see.
 *
 * The confidence is the mean of three shares of the question's terms: held by the best unit (its
 * relevance), by the section it stands in, and by the sources at all. A question whose rare terms
 * the sources lack, or hold only far from each other, is one they do not answer; so is one about a
 * name (see subjectsOf) that no source mentions at all, however well its other words match.
 *
 * The best unit is kept with the sentences that follow it in its section when that section's heading
 * asks the question, then with units of nearly its score and relevance (and its shape), and with the unit right
 * after it when that one has the asked-for shape (the command after "Using npm:"). Code is an answer
 * only to a question asking for a command.
 */
export function selectAnswer(question: string, passages: readonly Passage[]): Selection {
  const asked = askedTerms(question);
  if (asked.length === 0) return { units: [], confidence: 0 };
  const candidates = passages.flatMap(candidatesOf);
  const frequency = new Map<string, number>();
  for (const candidate of candidates) {
    for (const term of candidate.terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  }
  const weight = (term: string): number => 1 / Math.log(2 + (frequency.get(term) ?? 0));
  const total = asked.reduce((sum, term) => sum + weight(term), 0);
  const share = (terms: ReadonlySet<string>): number =>
    asked.reduce((sum, term) => sum + holds(terms, term) * weight(term), 0) / total;
  const kind = askedFor(question);
  const shape = answerShape(kind);
  const wantsCode = kind === 'command';
  const named = kindTerms(kind);
  const subjects = subjectsOf(question);
  const scored = candidates
    .filter((candidate) => wantsCode || !CODE.test(candidate.text))
    .map((candidate) => {
      const fits = shape?.test(candidate.text) ? 0.25 : 0;
      const coverage = share(fits > 0 ? unionOf([candidate.terms, named]) : candidate.terms);
      const opening = share(candidate.heading) * (OPENING[candidate.position] ?? 0.4);
      const relevance = coverage + (1 - coverage) * 0.9 * opening;
      const length = 1 / (1 + Math.max(0, candidate.words - 30) / 60);
      // Weighed on the evaluation's calibration half (0.05 → 0.1 raised first citations there from
      // 80.8 to 82.1 %, and on the held-out half from 78.1 to 78.7 %, key fact not lower).
      const rank = 0.1 / (1 + candidate.source);
      return { candidate, relevance, opening, score: relevance * length + (relevance > 0 ? fits + rank : 0) };
    })
    .sort((a, b) => b.score - a.score);
  const best = scored[0];
  if (!best) return { units: [], confidence: 0 };
  // A name the question asks about that no source mentions at all: the sources are about something else.
  const unheard = subjects.some((term) =>
    candidates.every(
      (candidate) => holds(candidate.terms, term) === 0 && holds(candidate.heading, term) === 0,
    ),
  );
  if (unheard) return { units: [], confidence: 0 };
  const section = candidates.filter(
    (candidate) => candidate.source === best.candidate.source && candidate.heading === best.candidate.heading,
  );
  const confidence =
    (best.relevance +
      share(unionOf([best.candidate.heading, ...section.map((unit) => unit.terms)])) +
      share(unionOf(candidates.flatMap((unit) => [unit.heading, unit.terms])))) /
    3;
  if (confidence < MIN_CONFIDENCE) return { units: [], confidence };
  const chosen = new Set([best.candidate]);
  if (best.opening >= 0.5) {
    const followers = section.filter((candidate) => candidate.order > best.candidate.order);
    for (const follower of followers.slice(0, MAX_UNITS - 1)) chosen.add(follower);
  }
  for (const entry of scored.slice(1)) {
    if (chosen.size >= MAX_UNITS) break;
    // Of the asked-for shape too, when the best has it: "What is X?" quotes what X is, not about X.
    const sameShape = !shape?.test(best.candidate.text) || shape.test(entry.candidate.text);
    const asRelevant = entry.relevance >= Math.max(MIN_RELEVANCE, 0.8 * best.relevance);
    const sameSubject = subjects.every(
      (term) => holds(best.candidate.terms, term) === 0 || holds(entry.candidate.terms, term) > 0,
    );
    if (asRelevant && sameSubject && entry.score >= 0.8 * best.score && sameShape)
      chosen.add(entry.candidate);
  }
  const next = candidates.find(
    (candidate) => candidate.source === best.candidate.source && candidate.order === best.candidate.order + 1,
  );
  if (next && shape?.test(next.text) && !shape.test(best.candidate.text) && chosen.size < MAX_UNITS)
    chosen.add(next);
  return { units: [...chosen], confidence };
}

/**
 * The names a question asks about: its capitalised words after the first (and Latin words in a
 * question of another script) — "Koa" in "What version of Node.js does Koa require?".
 */
function subjectsOf(question: string): string[] {
  const latin = question.match(/[A-Za-z][\w.+-]*/g) ?? [];
  const otherScript = /\p{L}/u.test(question.replace(/[A-Za-z]/g, ''));
  const names = latin.filter((word, index) => otherScript || (index > 0 && /^[A-Z]/.test(word)));
  return [...new Set(names.flatMap(termsOf))].filter((term) => !STOP_WORDS.has(term));
}

function unionOf(sets: ReadonlyArray<ReadonlySet<string>>): Set<string> {
  const union = new Set<string>();
  for (const set of sets) for (const term of set) union.add(term);
  return union;
}
