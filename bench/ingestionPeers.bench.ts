/**
 * Ingestion beside its peers and beside a floor, per CPU-second, on the same inputs in the same run
 * with the stacks alternated (medians of INGEST_RUNS, default 3):
 *
 * - **Archivist**: the compiled server, `POST /upload` two at a time (server CPU, all threads); and
 *   **archivist-bulk**, the same files as `POST /upload/bulk` requests of 50 (one task per request).
 * - **Minimal pipeline** (the floor): the same work and nothing else, in this process — read,
 *   markdown-it, one chunk per heading section, our local embedder, one durable SQLite commit per
 *   file (WAL, synchronous FULL). Markdown only.
 * - **LlamaIndex 0.14** (in memory, nothing persisted) and **LangChain splitters into embedded
 *   Chroma 1.5** (one `add()` per file, or batched across files), in a Python virtual environment
 *   of the benchmark's own (made under ~/.cache/archivist on first use, pinned versions from PyPI).
 *
 * Every stack embeds with a hashed embedder; the peers' Python one costs more per MB than ours, so
 * their CPU is also given with their embedding replaced by ours at our measured cost per MB of text
 * ("same embedder"): the ratios use that. What each stack makes durable, and when, is printed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import MarkdownIt from 'markdown-it';
import { createLocalEmbedder } from '../src/models/localEmbedder.js';
import { handbook, joined, measure, megabytesOf, sameKind, warmUpInputs } from './ingestionSupport.js';
import { readmes, type Input } from './registryDocuments.js';
import { build, machine, median, report } from './support.js';

const RUNS = Number(process.env['INGEST_RUNS'] ?? 3);
const PEERS = join(homedir(), '.cache', 'archivist', 'bench-peers-1');
const PEER_PACKAGES = [
  'llama-index-core==0.14.25',
  'langchain-text-splitters==1.1.3',
  'chromadb==1.5.9',
  'beautifulsoup4==4.15.0',
  'lxml==6.2.1',
  'numpy==2.4.6',
];
const PEER_STACKS = ['llamaindex', 'chroma', 'chroma-batched'] as const;
/** Ours: one file per `POST /upload` (two at a time), and `POST /upload/bulk` of 50 files (one task each). */
const OUR_STACKS = [
  ['archivist', '/upload'],
  ['archivist-bulk', '/upload/bulk'],
] as const;
type PeerStack = (typeof PEER_STACKS)[number];

/** The peers' Python, installing them on first use; null (with the reason printed) when it cannot. */
function peersPython(): string | null {
  const python = join(PEERS, 'bin', 'python');
  const ready = join(PEERS, 'installed');
  if (existsSync(ready)) return python;
  const make = spawnSync('python3', ['-m', 'venv', PEERS], { stdio: 'inherit' });
  const install =
    make.status === 0
      ? spawnSync(python, ['-m', 'pip', 'install', '-q', ...PEER_PACKAGES], { stdio: 'inherit' })
      : make;
  if (install.status !== 0) {
    console.log(`peers: skipped: could not install ${PEER_PACKAGES.join(' ')} into ${PEERS}`);
    return null;
  }
  writeFileSync(ready, PEER_PACKAGES.join('\n'));
  return python;
}

interface Measured {
  megabytes: number;
  cpu: number;
  chunks: number;
  /** CPU-seconds and MB of text of the embedder (peers and the floor; 0 for Archivist's server). */
  embedCpu: number;
  embedMegabytes: number;
}

function writeInputs(dir: string, inputs: readonly Input[]): string[] {
  mkdirSync(dir, { recursive: true });
  return inputs.map((input, index) => {
    const path = join(dir, `${index}-${input.name.replace(/[^\w.-]+/g, '_')}`);
    writeFileSync(path, input.bytes);
    return path;
  });
}

function peer(python: string, stack: PeerStack, files: string[], warm: string[]): Measured {
  const run = spawnSync(python, [join(import.meta.dirname, 'peers', 'ingest_peers.py')], {
    input: JSON.stringify({ stack, files, warm }),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, PYTHONHASHSEED: '0', ANONYMIZED_TELEMETRY: 'False' },
  });
  if (run.status !== 0) throw new Error(`${stack} failed: ${run.stderr.slice(-2_000)}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Measured;
}

/** The floor: markdown-it, heading sections, our embedder, one durable SQLite commit per file. */
async function minimalPipeline(inputs: readonly Input[], warm: readonly Input[]): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-floor-'));
  const db = new Database(join(dir, 'chunks.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE chunks (doc TEXT, heading TEXT, text TEXT, vector BLOB)');
  const insert = db.prepare('INSERT INTO chunks VALUES (?, ?, ?, ?)');
  const markdown = new MarkdownIt('default', { html: true });
  const embedder = createLocalEmbedder();
  let embedCpu = 0;
  let embedMegabytes = 0;
  const ingest = async (batch: readonly Input[]): Promise<number> => {
    let chunks = 0;
    for (const input of batch) {
      const sections: Array<{ heading: string; text: string[] }> = [{ heading: '', text: [] }];
      let inHeading = false;
      for (const token of markdown.parse(input.bytes.toString('utf8'), {})) {
        if (token.type === 'heading_open') {
          inHeading = true;
          sections.push({ heading: '', text: [] });
        } else if (token.type === 'heading_close') inHeading = false;
        else if (token.type === 'inline' || token.type === 'fence' || token.type === 'code_block') {
          const section = sections.at(-1)!;
          if (inHeading) section.heading = token.content;
          else section.text.push(token.content);
        }
      }
      const texts = sections
        .map((section) => ({ heading: section.heading, text: section.text.join('\n\n') }))
        .filter((section) => section.text.trim().length > 0);
      const before = process.cpuUsage();
      const vectors = await embedder.embed(
        texts.map((section) => section.text),
        { kind: 'passage' },
      );
      const used = process.cpuUsage(before);
      embedCpu += (used.user + used.system) / 1e6;
      embedMegabytes += texts.reduce((sum, section) => sum + Buffer.byteLength(section.text), 0) / 1e6;
      db.transaction(() => {
        texts.forEach((section, i) =>
          insert.run(input.name, section.heading, section.text, Buffer.from(vectors[i]!.buffer)),
        );
      })();
      chunks += texts.length;
    }
    return chunks;
  };
  try {
    await ingest(warm);
    embedCpu = 0;
    embedMegabytes = 0;
    const before = process.cpuUsage();
    const chunks = await ingest(inputs);
    const used = process.cpuUsage(before);
    const cpu = (used.user + used.system) / 1e6;
    return { megabytes: megabytesOf(inputs), cpu, chunks, embedCpu, embedMegabytes };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Our embedder's CPU-seconds per MB of text, as the floor measured it (the stack that runs it alone). */
let oursPerMegabyte = Number.NaN;

const perCpuSecond = (m: Measured): number => m.megabytes / m.cpu;

/** CPU with the stack's own embedding replaced by ours at `oursPerMegabyte` (CPU-s per MB of text). */
const withOurEmbedder = (m: Measured, oursPerMegabyte: number): number =>
  m.megabytes / (m.cpu - m.embedCpu + oursPerMegabyte * m.embedMegabytes);

/**
 * Copies of the measured inputs' kind sent first (INGEST_STEADY_ROUNDS, default 3; 0 for the
 * registry warm-up alone): a server that has run a while. After the registry warm-up alone, V8 was
 * still optimising the upload path: `--trace-opt` counted 156 TurboFan compilations (816 ms) within
 * the 207 measured READMEs, ~3.9 ms of each file's CPU, and each further round of the same kind
 * cost less (19.2, 15.9, 15.0, 13.6 ms per file).
 */
const STEADY_ROUNDS = Number(process.env['INGEST_STEADY_ROUNDS'] ?? 3);

async function compare(label: string, inputs: Input[], markdownOnly: boolean, python: string | null) {
  const warm = [...warmUpInputs(inputs).slice(0, 60), ...sameKind(inputs, STEADY_ROUNDS)];
  const dir = mkdtempSync(join(tmpdir(), 'bench-peers-inputs-'));
  const files = writeInputs(join(dir, 'files'), inputs);
  const warmFiles = writeInputs(join(dir, 'warm'), warm);
  const results = new Map<string, Measured[]>();
  const add = (stack: string, measured: Measured): void => {
    results.set(stack, [...(results.get(stack) ?? []), measured]);
  };
  try {
    // Alternated: each run measures every stack once, so a noisy minute falls on all of them.
    for (let run = 0; run < RUNS; run += 1) {
      for (const [stack, path] of OUR_STACKS) {
        const ours = await measure(inputs, warm, path, {});
        add(stack, {
          megabytes: megabytesOf(inputs),
          cpu: ours.cpu,
          chunks: ours.chunks,
          embedCpu: 0,
          embedMegabytes: 0,
        });
      }
      if (markdownOnly) add('minimal', await minimalPipeline(inputs, warm));
      if (python) for (const stack of PEER_STACKS) add(stack, peer(python, stack, files, warmFiles));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const floor = results.get('minimal');
  if (floor) oursPerMegabyte = median(floor.map((m) => m.embedCpu / m.embedMegabytes));
  console.log(`${label}: ${inputs.length} files, ${megabytesOf(inputs).toFixed(2)} MB`);
  report('  our embedder, CPU-seconds per MB of text (measured by the floor)', oursPerMegabyte, 's/MB');
  const rates = new Map<string, number>();
  for (const [stack, measured] of results) {
    const raw = median(measured.map(perCpuSecond));
    const same =
      stack.startsWith('archivist') || !Number.isFinite(oursPerMegabyte)
        ? raw
        : median(measured.map((m) => withOurEmbedder(m, oursPerMegabyte)));
    rates.set(stack, same);
    const chunks = measured.at(-1)!.chunks;
    report(
      `  ${stack}: MB per CPU-second${PEER_STACKS.includes(stack as PeerStack) ? ` (with its own embedder ${raw.toFixed(2)})` : ''}, ${chunks} chunks`,
      same,
      'MB/s',
    );
  }
  const fastestPeer = Math.max(...PEER_STACKS.map((stack) => rates.get(stack) ?? 0));
  for (const [ourStack] of OUR_STACKS) {
    const ours = rates.get(ourStack)!;
    for (const [stack, rate] of rates)
      if (!stack.startsWith('archivist')) report(`  ${ourStack} ÷ ${stack}`, ours / rate, '');
    if (fastestPeer > 0) report(`  ${ourStack} ÷ the fastest peer`, ours / fastestPeer, '', '>= 1.5');
    if (rates.has('minimal'))
      report(`  ${ourStack} ÷ the minimal pipeline`, ours / rates.get('minimal')!, '', '>= 0.6');
    const cpuPerFile = median(results.get(ourStack)!.map((m) => m.cpu)) / inputs.length;
    report(`  ${ourStack} CPU per file`, cpuPerFile * 1000, 'ms', '<= 6 for small files');
  }
}

console.log(`machine: ${machine()}`);
console.log(
  "durable, and when: archivist — each upload's events committed (SQLite WAL, fsync) before its answer, read models and vectors after; minimal — one SQLite commit (synchronous FULL) per file; LlamaIndex — nothing (in memory); Chroma — SQLite and its segments under its folder, per add()",
);
build();
const python = peersPython();
const markdown = readmes(Number(process.env['INGEST_PEERS_MB'] ?? 2) * 1_000_000);
await compare('npm READMEs (Markdown)', markdown, true, python);
await compare('~1 MB Markdown documents', joined(markdown, 1_000_000), true, python);
await compare('handbook HTML (Debian, English and Arabic)', handbook(), false, python);
