/**
 * Start-up: from spawning the compiled server (what `npm start` runs) to `/api/v1/health/ready`
 * answering with the event store, read store, bus and projections healthy (projections caught up to
 * the head), with an empty data folder and with 1,000,000 events in the log (start-up reads
 * checkpoints; it replays nothing). Beside it, in the same run, the reference: a bare Node HTTP
 * server's start to its first answer, so the figure can be read on any machine as a ratio. Each run
 * also reports the server's own account of where the time went (its `startupMs` log field: Node
 * and the modules, the stores, the roles, HTTP). And `npm start` itself, as a new user types it: npm,
 * the build check of `prestart` (a current build is not rebuilt), then node; and the command line's
 * own start (`archivist --version`) beside `node -e 0`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteEventStore } from '../src/eventStore/sqliteEventStore.js';
import {
  build,
  COMPILED_CLI,
  machine,
  median,
  report,
  START_ENV,
  START_NODE_OPTIONS,
  taskLifecycle,
} from './support.js';

const TOTAL = 1_000_000;
const TASKS = 10_000;
const PORT = 18_700 + Math.floor(Math.random() * 200);
const dataDir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
const cli = COMPILED_CLI;
const RUNS = 5;

console.log(`machine: ${machine()}`);
build();

/** The reference: Node starting a bare HTTP server, to its first answer. */
async function referenceOnce(): Promise<number> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['-e', `require('http').createServer((q, s) => s.end('{}')).listen(${PORT}, '127.0.0.1')`],
    { stdio: 'ignore' },
  );
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${PORT}/`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const ms = performance.now() - started;
  await stopChild(child);
  return ms;
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
const store = createSqliteEventStore({ path: join(dataDir, 'events.db') });
const metadata = { now: new Date().toISOString(), actorId: 'bench', correlationId: 'bench' };
for (let i = 0; i < TASKS; i += 1) {
  const taskId = randomUUID();
  await store.append(`task-${taskId}`, taskLifecycle(taskId));
}
const notes = Array.from({ length: 1_000 }, (_, n) => ({
  type: 'NoteRecorded',
  data: { n, text: 'an event no projection of this build handles' },
  metadata,
}));
while ((await store.headPosition()) < TOTAL)
  await store.append(
    `note-${randomUUID()}`,
    notes.slice(0, Math.min(1_000, TOTAL - (await store.headPosition()))),
  );
const head = await store.headPosition();
await store.close();
console.log(`event log: ${head.toLocaleString('en')} events`);

async function readiness(): Promise<{ projections: boolean } | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${PORT}/api/v1/health/ready`);
    const body = (await response.json()) as { components: Array<{ name: string; healthy: boolean }> };
    const core = body.components.filter((c) =>
      ['event_store', 'read_store', 'bus', 'projections'].includes(c.name),
    );
    return { projections: core.every((c) => c.healthy) };
  } catch {
    return null;
  }
}

type Phases = Record<string, number>;

/**
 * Starts the server on `folder` to ready: the compiled CLI with `npm start`'s options, or `npm start`
 * itself (npm, the build check of `prestart`, then node), as a new user runs it.
 */
async function startOnce(
  folder = dataDir,
  how: 'node' | 'npm start' = 'node',
): Promise<{ ms: number; phases: Phases | null; stop: () => Promise<void> }> {
  const started = performance.now();
  const env = { ...process.env, ...START_ENV, DATA_DIR: folder, PORT: String(PORT), LOG_LEVEL: 'info' };
  const child =
    how === 'node'
      ? spawn(process.execPath, [...START_NODE_OPTIONS, cli, 'serve'], {
          env,
          stdio: ['ignore', 'pipe', 'ignore'],
        })
      : // Its own process group, so that stopping it stops npm's shell and node too.
        spawn('npm', ['start', '--silent'], { env, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  let phases: Phases | null = null;
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    const line = output.split('\n').find((text) => text.includes('"startupMs"'));
    if (line && !phases) phases = (JSON.parse(line) as { startupMs: Phases }).startupMs;
  });
  for (;;) {
    const state = await readiness();
    if (state?.projections) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const ms = performance.now() - started;
  return { ms, phases, stop: () => (how === 'node' ? stopChild(child) : stopGroup(child)) };
}

function stopGroup(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGTERM');
  });
}

const describePhases = (phases: Phases | null): string =>
  phases
    ? Object.entries(phases)
        .map(([name, ms]) => `${name} ${ms}`)
        .join(', ')
    : 'no startupMs line';

/** Runs of the reference and of Archivist, alternating, so both meet the machine in the same state. */
async function compare(
  label: string,
  folder: () => string,
  how: 'node' | 'npm start' = 'node',
  target = '<= 1,000 ms',
): Promise<void> {
  const ours: number[] = [];
  const reference: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    reference.push(await referenceOnce());
    const { ms, phases, stop } = await startOnce(folder(), how);
    ours.push(ms);
    await stop();
    console.log(
      `  ${label}, run ${run + 1}: ${Math.round(ms)} ms to ready (server's account: ${describePhases(phases)} ms)`,
    );
  }
  report(`bare Node HTTP server, start to first answer (median of ${RUNS})`, median(reference), 'ms');
  report(`start-up to ready, ${label} (median of ${RUNS})`, median(ours), 'ms', target);
  report(`  ratio to the bare Node server`, median(ours) / median(reference), '×');
}

const emptyFolders: string[] = [];
const emptyFolder = (): string => {
  const folder = mkdtempSync(join(tmpdir(), 'bench-startup-empty-'));
  emptyFolders.push(folder);
  return folder;
};
await compare('empty data folder', emptyFolder);
// `npm start` as a new user runs it after `npm ci`: the build is current, so prestart only checks.
execFileSync(process.execPath, [join(import.meta.dirname, '..', 'scripts', 'build-if-stale.mjs')], {
  stdio: 'inherit',
});
await compare('`npm start`, empty data folder', emptyFolder, 'npm start', '<= 1,500 ms');

/** Wall time of a command that exits, from spawn to exit. */
function timedRun(args: string[]): number {
  const started = performance.now();
  execFileSync(process.execPath, args, { stdio: 'ignore' });
  return performance.now() - started;
}
// The command line, as `npx archivist …` runs it (the compiled CLI): `--version` loads nothing of
// the product, beside `node -e 0` in the same runs.
const CLI_RUNS = 11;
const cliTimes: number[] = [];
const nodeTimes: number[] = [];
for (let run = 0; run < CLI_RUNS; run += 1) {
  nodeTimes.push(timedRun(['-e', '0']));
  cliTimes.push(timedRun([cli, '--version']));
}
report(`node -e 0, spawn to exit (median of ${CLI_RUNS})`, median(nodeTimes), 'ms');
report(`archivist --version, spawn to exit (median of ${CLI_RUNS})`, median(cliTimes), 'ms');
report(`  ratio to node -e 0`, median(cliTimes) / median(nodeTimes), '×');

const first = await startOnce();
report('first start: projections build from 1,000,000 events', first.ms, 'ms');
await new Promise((resolve) => setTimeout(resolve, 5_000)); // let the worker settle the replayed jobs
await first.stop();

await compare('1,000,000 events', () => dataDir);
for (const folder of [dataDir, ...emptyFolders]) rmSync(folder, { recursive: true, force: true });
