/**
 * Answer quality over real FAQ and manual material (see README.md here). The corpus is uploaded to
 * a fresh embedded server through the retrieval API, every question is asked through `POST
 * /api/v1/query`, and the answers are judged:
 * - key fact: the gold short answer (or an accepted alternative) appears in the answer text;
 * - first citation: the source the answer cites first (its first `[n]`, else the first source) is
 *   from the gold document, and the gold section is on its section path;
 * - abstention: the response says `abstained` on an unanswerable question;
 * - false abstention: it says `abstained` on an answerable one;
 * - p50 latency: the median wall time of a `/query` request, as the client sees it.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { silentLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { listen } from '../../src/server.js';

export const corpusDir = join(import.meta.dirname, 'corpus');

export interface AnswerableQuestion {
  id: string;
  lang: 'en' | 'ar';
  question: string;
  /** The key fact, verbatim from the document. */
  answer: string;
  alternatives?: string[];
  /** The corpus file that holds it (`en/debian-faq.choosing.html`). */
  document: string;
  /** The heading of the smallest section that holds it. */
  section: string;
  kind: string;
}

export interface UnanswerableQuestion {
  id: string;
  lang: 'en' | 'ar';
  question: string;
  why: string;
}

export interface QuestionSet {
  answerable: AnswerableQuestion[];
  unanswerable: UnanswerableQuestion[];
}

/** How one question went. */
export interface Outcome {
  id: string;
  lang: 'en' | 'ar';
  answerable: boolean;
  abstained: boolean;
  keyFact: boolean;
  firstCitation: boolean;
  /** Diagnostic: a source (any of them) is from the gold section, whatever the answer says. */
  retrieved: boolean;
  latencyMs: number;
  answer: string;
}

export interface Figures {
  answerable: number;
  unanswerable: number;
  /** Shares of the answerable questions. */
  keyFact: number;
  firstCitation: number;
  falseAbstention: number;
  /** Share of the unanswerable questions. */
  abstention: number;
  /** Diagnostic: share of the answerable questions with the gold section among the sources. */
  retrieved: number;
  p50LatencyMs: number;
}

/** Figures over all questions and per language. */
export type Report = Record<'all' | 'en' | 'ar', Figures>;

export async function loadQuestions(): Promise<QuestionSet> {
  const read = async <T>(file: string): Promise<T[]> =>
    JSON.parse(await readFile(join(import.meta.dirname, file), 'utf8')) as T[];
  return {
    answerable: [
      ...(await read<AnswerableQuestion>('questions.en.json')),
      ...(await read<AnswerableQuestion>('questions.ar.json')),
    ],
    unanswerable: await read<UnanswerableQuestion>('unanswerable.json'),
  };
}

/**
 * The questions of the calibration half: every other question of each file in id order. Thresholds
 * are tuned on it; the other half is held out, and the report gives both.
 */
export function isCalibration(id: string): boolean {
  const number = Number(/(\d+)$/.exec(id)?.[1] ?? '0');
  return number % 2 === 1;
}

/**
 * Text compared for the key fact: NFKC, lower case, Arabic diacritics and tatweel removed, the
 * forms of alef, yeh and teh marbuta folded, quotes and backticks dropped, white space collapsed.
 */
export function comparable(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u064B-\u065F\u0670\u0640]/g, '')
    .replace(/[أإآٱ]/g, 'ا')
    .replace(/ى/g, 'ي')
    .replace(/ة/g, 'ه')
    .replace(/[`"'“”‘’«»]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function holdsKeyFact(answer: string, question: AnswerableQuestion): boolean {
  const text = comparable(answer.replace(/\[\d+\]/g, ' '));
  return [question.answer, ...(question.alternatives ?? [])].some((fact) => text.includes(comparable(fact)));
}

interface WireSource {
  source: string;
  /** The upload's section: the corpus language. */
  section: string;
  section_path?: string[];
}

/** The source an answer cites first: its first `[n]` naming a source, else the first source. */
export function firstCited(answer: string, sources: readonly WireSource[]): WireSource | null {
  for (const match of answer.matchAll(/\[(\d+)\]/g)) {
    const source = sources[Number(match[1]) - 1];
    if (source) return source;
  }
  return sources[0] ?? null;
}

const heading = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The corpus file a source is, as `lang/file` (an upload's source is its file name; its section, the language). */
const documentOf = (source: WireSource): string =>
  `${source.section}/${source.source.split('/').pop() ?? ''}`;

export function citesGoldSection(source: WireSource | null, question: AnswerableQuestion): boolean {
  if (!source || documentOf(source) !== question.document) return false;
  return (source.section_path ?? []).some((entry) => heading(entry) === heading(question.section));
}

/**
 * Uploads the corpus to a fresh embedded server configured by `env` (a chat model, an embedder),
 * asks every question through `/api/v1/query`, and judges the answers.
 */
export async function evaluateAnswers(
  env: Record<string, string>,
  questions: QuestionSet,
  options: { progress?: (done: number, total: number) => void } = {},
): Promise<Outcome[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'archivist-answers-'));
  const apiKey = 'eval-answers-key';
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0', API_KEYS: apiKey, ...env });
  const runtime = await createRuntime(config, { log: silentLogger });
  await runtime.start();
  const server = await listen(createApp(runtime), runtime);
  const call = async (path: string, init: RequestInit): Promise<Record<string, unknown>> => {
    const response = await fetch(`${server.url}/api/v1${path}`, {
      ...init,
      headers: { 'X-API-Key': apiKey, ...(init.headers as Record<string, string> | undefined) },
    });
    const body = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(body)}`);
    return body;
  };
  try {
    await uploadCorpus(call);
    const outcomes: Outcome[] = [];
    const all = [
      ...questions.answerable.map((question) => ({ question, gold: question })),
      ...questions.unanswerable.map((question) => ({ question, gold: null })),
    ];
    for (const { question, gold } of all) {
      const started = performance.now();
      const body = await call('/query', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ question: question.question, top_k: 5 }),
      });
      const latencyMs = performance.now() - started;
      const answer = String(body['answer']);
      const sources = body['sources'] as WireSource[];
      const abstained = body['abstained'] === true;
      outcomes.push({
        id: question.id,
        lang: question.lang,
        answerable: gold !== null,
        abstained,
        keyFact: gold !== null && !abstained && holdsKeyFact(answer, gold),
        firstCitation: gold !== null && !abstained && citesGoldSection(firstCited(answer, sources), gold),
        retrieved: gold !== null && sources.some((source) => citesGoldSection(source, gold)),
        latencyMs,
        answer,
      });
      options.progress?.(outcomes.length, all.length);
    }
    return outcomes;
  } finally {
    await server.close();
    await runtime.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

type Call = (path: string, init: RequestInit) => Promise<Record<string, unknown>>;

/** Each corpus file uploaded synchronously, named by its path under corpus/ (its `source`). */
async function uploadCorpus(call: Call): Promise<void> {
  for (const lang of ['en', 'ar']) {
    for (const file of (await readdir(join(corpusDir, lang))).sort()) {
      const form = new FormData();
      const bytes = await readFile(join(corpusDir, lang, file));
      form.append('file', new Blob([bytes], { type: 'text/html' }), file);
      form.append('section', lang);
      const body = await call('/upload', { method: 'POST', body: form });
      if (body['success'] !== true)
        throw new Error(`${lang}/${file} was not ingested: ${JSON.stringify(body)}`);
    }
  }
}

const share = (outcomes: readonly Outcome[], test: (outcome: Outcome) => boolean): number =>
  outcomes.length === 0 ? 0 : outcomes.filter(test).length / outcomes.length;

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function figuresOf(outcomes: readonly Outcome[]): Figures {
  const answerable = outcomes.filter((outcome) => outcome.answerable);
  const unanswerable = outcomes.filter((outcome) => !outcome.answerable);
  return {
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    keyFact: share(answerable, (outcome) => outcome.keyFact),
    firstCitation: share(answerable, (outcome) => outcome.firstCitation),
    falseAbstention: share(answerable, (outcome) => outcome.abstained),
    abstention: share(unanswerable, (outcome) => outcome.abstained),
    retrieved: share(answerable, (outcome) => outcome.retrieved),
    p50LatencyMs: median(outcomes.map((outcome) => outcome.latencyMs)),
  };
}

export function reportOf(outcomes: readonly Outcome[]): Report {
  return {
    all: figuresOf(outcomes),
    en: figuresOf(outcomes.filter((outcome) => outcome.lang === 'en')),
    ar: figuresOf(outcomes.filter((outcome) => outcome.lang === 'ar')),
  };
}

/** Least shares (most, for false abstention) a model's figures must reach. */
export type Floors = Pick<Figures, 'keyFact' | 'firstCitation' | 'abstention' | 'falseAbstention'>;

/** The targets for the embedded default. */
export const TARGETS: Floors = { keyFact: 0.7, firstCitation: 0.8, abstention: 0.9, falseAbstention: 0.1 };

/** What the figures miss of `floors`, or null when they hold. */
export function judge(figures: Figures, floors: Floors): string | null {
  const misses: string[] = [];
  if (figures.keyFact < floors.keyFact)
    misses.push(`key fact ${pct(figures.keyFact)} < ${pct(floors.keyFact)}`);
  if (figures.firstCitation < floors.firstCitation)
    misses.push(`first citation ${pct(figures.firstCitation)} < ${pct(floors.firstCitation)}`);
  if (figures.abstention < floors.abstention)
    misses.push(`abstention ${pct(figures.abstention)} < ${pct(floors.abstention)}`);
  if (figures.falseAbstention > floors.falseAbstention)
    misses.push(`false abstention ${pct(figures.falseAbstention)} > ${pct(floors.falseAbstention)}`);
  return misses.length === 0 ? null : misses.join('; ');
}

export const pct = (value: number): string => `${(value * 100).toFixed(1)} %`;
