/** Inputs and measurement shared by the ingestion benchmarks (ingestion, ingestionPeers). */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mapLimit } from '../src/mapLimit.js';
import { registryDocuments, type Input } from './registryDocuments.js';
import { cpuSeconds, serveCompiled } from './support.js';

const root = join(import.meta.dirname, '..');

export const megabytesOf = (inputs: readonly Input[]): number =>
  inputs.reduce((sum, input) => sum + input.bytes.length, 0) / 1e6;

/**
 * Other real documents from the same registry (Markdown that is not a README, the few HTML pages
 * packages ship), sent through the same path before each measurement: a long-running server has
 * compiled its code paths, and a fresh one spent up to a third of its CPU compiling them during the
 * first megabytes (one server given the same 4.65 MB of Markdown five times, each a little changed:
 * 0.77, 1.81, 1.93, 1.96, 2.41 MB per CPU-second).
 */
export function warmUpInputs(measured: readonly Input[]): Input[] {
  return registryDocuments(
    (name, size) => /\.(md|html)$/.test(name) && name !== 'README.md' && size > 4_096 && size < 600_000,
    5_000_000,
    measured,
  ).map((input) => ({ ...input, name: `warm__${input.name}` }));
}

/** The Debian Administrator's Handbook pages of the retrieval evaluation, English and Arabic (HTML). */
export function handbook(): Input[] {
  const dir = join(root, 'eval', 'retrieval', 'corpus');
  return ['en', 'ar'].flatMap((lang) =>
    readdirSync(join(dir, lang))
      .sort()
      .map((name) => ({ name: `${lang}-${name}`, bytes: readFileSync(join(dir, lang, name)) })),
  );
}

async function post(
  port: number,
  path: string,
  inputs: readonly Input[],
): Promise<Record<string, unknown>[]> {
  const form = new FormData();
  const field = path === '/upload/bulk' ? 'files' : 'file';
  for (const input of inputs) form.append(field, new Blob([input.bytes]), input.name);
  const response = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, { method: 'POST', body: form });
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${inputs[0]?.name}: ${response.status} ${JSON.stringify(body)}`);
  return path === '/upload/bulk' ? (body['results'] as Record<string, unknown>[]) : [body];
}

/** Files per `/upload/bulk` request: the server's default most (UPLOAD_MAX_FILES). */
const BULK_FILES = 50;

/** What the server is sent at once: one file per request, two requests at a time; or bulk requests of 50, one at a time. */
function requests(inputs: readonly Input[], path: IngestPath): { batches: Input[][]; inFlight: number } {
  if (path !== '/upload/bulk') return { batches: inputs.map((input) => [input]), inFlight: 2 };
  const batches: Input[][] = [];
  for (let at = 0; at < inputs.length; at += BULK_FILES) batches.push(inputs.slice(at, at + BULK_FILES));
  // A bulk upload's task ingests two of its files at a time.
  return { batches, inFlight: 1 };
}

export type IngestPath = '/upload' | '/upload/bulk' | '/parse';

/** One fresh server per run: wall seconds and server CPU-seconds to ingest (or parse) every input. */
export async function measure(
  inputs: Input[],
  warmUp: readonly Input[],
  path: IngestPath,
  env: Record<string, string>,
): Promise<{ wall: number; cpu: number; chunks: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
  const port = 19_400 + Math.floor(Math.random() * 500);
  const server = await serveCompiled(port, { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env });
  try {
    // Steady state, not start-up: warm the code paths outside the measurement.
    const warm = requests(warmUp, path);
    await mapLimit(warm.batches, warm.inFlight, (batch) => post(port, path, batch));
    const measured = requests(inputs, path);
    const pid = server.process.pid!;
    const cpuBefore = cpuSeconds(pid);
    const started = performance.now();
    const results = (
      await mapLimit(measured.batches, measured.inFlight, (batch) => post(port, path, batch))
    ).flat();
    const wall = (performance.now() - started) / 1000;
    const cpu = cpuSeconds(pid) - cpuBefore;
    let chunks = 0;
    for (const result of results) {
      if (path !== '/parse' && result['success'] !== true && result['is_duplicate'] !== true)
        throw new Error(`not ingested: ${JSON.stringify(result)}`);
      chunks += Number(result['chunks_added'] ?? result['total_chunks'] ?? 0);
    }
    return { wall, cpu, chunks };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * `rounds` copies of `inputs` as other documents of the same kind: each line of prose gets a word of
 * its own, so no document and no chunk is a duplicate (or an embedding cache hit), and the Markdown's
 * structure (headings, tables, code) stays as it is. A server fed those has compiled what large
 * documents need: V8 kept recompiling the parse code for each new ~1 MB document for ~40 MB.
 */
export function sameKind(inputs: readonly Input[], rounds: number): Input[] {
  return Array.from({ length: rounds }, (_, round) =>
    inputs.map((input) => {
      const mark = `r${round + 1}`;
      const text = input.bytes.toString('utf8');
      const marked = text
        .split('\n')
        .map((line) => (/^\p{L}/u.test(line) ? `${line} ${mark}` : line))
        .join('\n');
      // A page whose lines all start with markup gets its word at the end instead.
      const changed =
        marked !== text ? marked : `${text}\n${/\.html?$/.test(input.name) ? `<p>${mark}</p>` : mark}\n`;
      return { name: `round${round + 1}__${input.name}`, bytes: Buffer.from(changed) };
    }),
  ).flat();
}

/** The same bytes as fewer, larger documents: what ingestion costs per MB once per-file work is spread. */
export function joined(inputs: Input[], targetBytes: number): Input[] {
  const documents: Input[] = [];
  let parts: Buffer[] = [];
  let size = 0;
  const flush = (): void => {
    if (parts.length === 0) return;
    documents.push({ name: `joined-${documents.length + 1}.md`, bytes: Buffer.concat(parts) });
    parts = [];
    size = 0;
  };
  for (const input of inputs) {
    parts.push(input.bytes, Buffer.from('\n\n'));
    size += input.bytes.length;
    if (size >= targetBytes) flush();
  }
  flush();
  return documents;
}
