/**
 * Retrieval quality over a real corpus (see README.md here): every query's ranked chunks are judged
 * by the document they come from, as recall@5 (a relevant section among the first five hits) and
 * MRR@10 (one over the rank of the first relevant hit within ten), for lexical only, dense only,
 * hybrid (the configured fusion) and hybrid + rerank (the local reranker).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createSearch, rerankWith, type FusionWeights, type Search } from '../../src/knowledge/search.js';
import { silentLogger } from '../../src/log.js';
import { createLocalReranker } from '../../src/models/localReranker.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { readmes, type Input } from '../../bench/registryDocuments.js';

export const corpusDir = join(import.meta.dirname, 'corpus');

export interface EvalQuery {
  id: string;
  lang: 'en' | 'ar';
  query: string;
  /** Corpus files (`en/sect.apt-get.html`) that answer the query. */
  relevant: string[];
  /** Worded to avoid the relevant passage's own terms. */
  paraphrase: boolean;
}

export const MODES = ['lexical', 'dense', 'hybrid', 'hybrid + rerank'] as const;
export type Mode = (typeof MODES)[number];

export interface Score {
  queries: number;
  recallAt5: number;
  mrrAt10: number;
}

/** Scores per mode, per slice of the queries (all, en, ar, paraphrased, literal). */
export type Report = Record<Mode, Record<string, Score>>;

export async function loadQueries(): Promise<EvalQuery[]> {
  return JSON.parse(await readFile(join(import.meta.dirname, 'queries.json'), 'utf8')) as EvalQuery[];
}

/** Queries whose id starts so are exact title lookups, scored apart from the judged queries. */
const TITLE_QUERY = 'title-';

/**
 * Exact title lookups: every section title of the corpus's pages (`<h1>`–`<h3>`, its number
 * dropped) as a query, relevant: the page it titles. People type a heading they saw to find it again;
 * the lexical half matches it word for word, and a dense half must not push it down.
 */
export async function titleQueries(): Promise<EvalQuery[]> {
  const queries: EvalQuery[] = [];
  for (const lang of ['en', 'ar'] as const) {
    for (const file of (await readdir(join(corpusDir, lang))).sort()) {
      const html = await readFile(join(corpusDir, lang, file), 'utf8');
      for (const [, inner] of html.matchAll(/<h[1-3][^>]*>([\s\S]*?)<\/h[1-3]>/g)) {
        const title = inner!
          .replace(/<[^>]*>/g, ' ')
          .replace(/&[a-z]+;|&#\d+;/g, ' ')
          .replace(/\s+/g, ' ')
          .trim()
          .replace(/^(?:[\p{L}]+ )?[\d.]+\.? /u, '')
          .trim();
        if (title.split(' ').length < 2) continue;
        queries.push({
          id: `${TITLE_QUERY}${lang}-${queries.length}`,
          lang,
          query: title,
          relevant: [`${lang}/${file}`],
          paraphrase: false,
        });
      }
    }
  }
  return queries;
}

/**
 * Documents of other sets that share a knowledge base with the corpus in the mixed evaluation, none
 * relevant to any query: the answer evaluation's Debian FAQ and BibleTime handbook (English and
 * Arabic) and the READMEs npm installed (up to 2 MB). The answer corpus's Arabic Debian handbook
 * sections are left out: they are translations of sections some queries are about.
 */
export async function unrelatedDocuments(): Promise<Input[]> {
  const answers = join(import.meta.dirname, '..', 'answers', 'corpus');
  const sets: Input[] = [];
  for (const lang of ['en', 'ar']) {
    for (const file of (await readdir(join(answers, lang))).sort()) {
      if (file.startsWith('debian-handbook.')) continue;
      sets.push({ name: `answers-${lang}__${file}`, bytes: await readFile(join(answers, lang, file)) });
    }
  }
  return [...sets, ...readmes(2_000_000)];
}

/**
 * Ingests the corpus — with `unrelated` documents beside it, for a knowledge base that holds several
 * document sets as a real one does — into a fresh embedded runtime configured by `env` (an embedder,
 * fusion weights), and scores every query in every mode.
 */
export async function evaluate(
  env: Record<string, string>,
  queries: readonly EvalQuery[],
  unrelated: readonly Input[] = [],
): Promise<Report> {
  const dataDir = await mkdtemp(join(tmpdir(), 'archivist-eval-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
  const runtime = await createRuntime(config, { log: silentLogger });
  try {
    await runtime.start();
    await ingestCorpus(runtime, unrelated);
    const searches = modeSearches(runtime, config.searchWeights);
    const report = {} as Report;
    for (const mode of MODES) {
      const ranks = new Map<EvalQuery, number | null>();
      for (const query of queries) ranks.set(query, await firstRelevantRank(searches[mode], query));
      report[mode] = slices(ranks);
    }
    return report;
  } finally {
    await runtime.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function ingestCorpus(runtime: Runtime, unrelated: readonly Input[]): Promise<void> {
  const documents = unrelated.map((input) => ({
    ...input,
    source: `unrelated/${input.name}`,
    section: 'unrelated',
  }));
  for (const lang of ['en', 'ar']) {
    for (const file of (await readdir(join(corpusDir, lang))).sort()) {
      const bytes = await readFile(join(corpusDir, lang, file));
      documents.push({ name: file, bytes, source: `${lang}/${file}`, section: lang });
    }
  }
  await ingestAll(runtime, documents);
}

/** Ingests every document, then waits until the read models and the vector index hold them all. */
async function ingestAll(
  runtime: Runtime,
  documents: ReadonlyArray<Input & { source: string; section: string }>,
): Promise<void> {
  for (const document of documents) {
    const outcome = await runtime.knowledge.ingest({
      fileName: document.name,
      bytes: document.bytes,
      source: document.source,
      sourceKind: 'upload',
      section: document.section,
      skipDuplicates: true,
      caller: { actorId: 'eval', correlationId: 'eval' },
      signal: new AbortController().signal,
    });
    if (!outcome.success && !outcome.isDuplicate)
      throw new Error(`${document.source} was not ingested: ${outcome.error ?? 'no reason'}`);
  }
  const head = await runtime.eventStore.headPosition();
  const [readModels, vectors] = await Promise.all([
    runtime.projections.waitFor(head, { timeoutMs: 600_000 }),
    runtime.knowledge.waitForVectors(head, 600_000),
  ]);
  if (!readModels || !vectors) throw new Error('the projections did not catch up with the corpus');
}

function modeSearches(runtime: Runtime, hybrid: FusionWeights): Record<Mode, Search> {
  const { knowledge } = runtime;
  const base = { dense: () => knowledge.collections.dense(), readModels: runtime.readModels };
  return {
    lexical: createSearch({ ...base, rerank: null, weights: { lexical: 1, dense: 0 } }),
    dense: createSearch({ ...base, rerank: null, weights: { lexical: 0, dense: 1 } }),
    hybrid: createSearch({ ...base, rerank: null, weights: hybrid }),
    'hybrid + rerank': createSearch({
      ...base,
      weights: hybrid,
      rerank: rerankWith(createLocalReranker()),
    }),
  };
}

/** The book's section a corpus file holds, whichever language it is written in. */
const sectionOf = (source: string): string => source.slice(source.indexOf('/') + 1);

/**
 * 1-based rank of the first hit from a relevant section within ten, or null. Both languages share
 * one knowledge base, as they would in use, and a section's translation answers the question too:
 * a hit from the other language's copy of a relevant section counts.
 */
async function firstRelevantRank(search: Search, query: EvalQuery): Promise<number | null> {
  const relevant = new Set(query.relevant.map(sectionOf));
  return rankOfFirst(search, query.query, (source) => relevant.has(sectionOf(source)));
}

/** 1-based rank of the first hit (of ten) whose document's source is relevant, or null. */
async function rankOfFirst(
  search: Search,
  query: string,
  relevant: (source: string) => boolean,
): Promise<number | null> {
  const { hits } = await search({ query, topK: 10, initialK: 20 });
  const at = hits.findIndex((hit) => relevant(hit.document.source));
  return at < 0 ? null : at + 1;
}

/** Recall@5 and MRR@10 of a list of first-relevant ranks. */
function scoreOf(ranks: ReadonlyArray<number | null>): Score {
  return {
    queries: ranks.length,
    recallAt5: mean(ranks.map((rank) => (rank !== null && rank <= 5 ? 1 : 0))),
    mrrAt10: mean(ranks.map((rank) => (rank === null ? 0 : 1 / rank))),
  };
}

/**
 * Short keyword queries over a large manual (`manual.ts`): its pages ingested into a fresh embedded
 * runtime configured by `env`, every query scored in every mode but the reranked one.
 */
export async function evaluateManual(
  env: Record<string, string>,
  pages: ReadonlyArray<{ name: string; bytes: Buffer }>,
  queries: ReadonlyArray<{ query: string; relevant: string[] }>,
): Promise<Record<Exclude<Mode, 'hybrid + rerank'>, Score>> {
  const dataDir = await mkdtemp(join(tmpdir(), 'archivist-eval-manual-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
  const runtime = await createRuntime(config, { log: silentLogger });
  try {
    await runtime.start();
    await ingestAll(
      runtime,
      pages.map((page) => ({ ...page, source: `manual/${page.name}`, section: 'manual' })),
    );
    const searches = modeSearches(runtime, config.searchWeights);
    const scores = {} as Record<Exclude<Mode, 'hybrid + rerank'>, Score>;
    for (const mode of ['lexical', 'dense', 'hybrid'] as const) {
      const ranks: Array<number | null> = [];
      for (const { query, relevant } of queries) {
        const pagesOf = new Set(relevant.map((page) => `manual/${page}`));
        ranks.push(await rankOfFirst(searches[mode], query, (source) => pagesOf.has(source)));
      }
      scores[mode] = scoreOf(ranks);
    }
    return scores;
  } finally {
    await runtime.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function slices(ranks: Map<EvalQuery, number | null>): Record<string, Score> {
  const all = [...ranks].filter(([query]) => !query.id.startsWith(TITLE_QUERY));
  const titles = [...ranks].filter(([query]) => query.id.startsWith(TITLE_QUERY));
  const groups: Record<string, typeof all> = {
    all,
    en: all.filter(([query]) => query.lang === 'en'),
    ar: all.filter(([query]) => query.lang === 'ar'),
    paraphrased: all.filter(([query]) => query.paraphrase),
    literal: all.filter(([query]) => !query.paraphrase),
    ...(titles.length > 0
      ? {
          'titles en': titles.filter(([query]) => query.lang === 'en'),
          'titles ar': titles.filter(([query]) => query.lang === 'ar'),
        }
      : {}),
  };
  return Object.fromEntries(
    Object.entries(groups).map(([name, group]) => [name, scoreOf(group.map(([, rank]) => rank))]),
  );
}

const mean = (values: readonly number[]): number =>
  values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * What the evaluation requires, or null when it holds: the embedded default (local embedder,
 * hybrid) never below lexical only, on either measure; with a real embedding model, hybrid above
 * both of its halves on both.
 */
export function judge(report: Report, localEmbedder: boolean): string | null {
  const hybrid = report.hybrid['all']!;
  const halves = localEmbedder
    ? { lexical: report.lexical['all']! }
    : {
        lexical: report.lexical['all']!,
        dense: report.dense['all']!,
      };
  for (const [name, half] of Object.entries(halves)) {
    for (const measure of ['recallAt5', 'mrrAt10'] as const) {
      const worse = localEmbedder ? hybrid[measure] < half[measure] : hybrid[measure] <= half[measure];
      if (worse) {
        return `hybrid ${measure} ${hybrid[measure].toFixed(3)} ${localEmbedder ? 'is below' : 'does not beat'} ${name} only (${half[measure].toFixed(3)})`;
      }
    }
  }
  return null;
}
