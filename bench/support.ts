import { execSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

export function machine(): string {
  const cpu = cpus();
  return `${cpu[0]?.model ?? 'cpu'} × ${cpu.length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** CPU seconds a process has used (user + system, all threads): contention does not inflate it much. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function report(name: string, value: number, unit: string, target?: string): void {
  const shown = value >= 100 ? Math.round(value).toLocaleString('en') : value.toFixed(3);
  console.log(`${name.padEnd(58)} ${shown.padStart(12)} ${unit}${target ? `   (target ${target})` : ''}`);
}

/** Compiles the product so benchmarks run what `npm start` runs. */
export function build(): void {
  try {
    execSync('npx tsc -p tsconfig.build.json', { stdio: 'inherit' });
  } catch {
    console.warn(
      'warning: the build reported type errors (output was still emitted); figures may not be final',
    );
  }
}

/** The compiled CLI (`npm run build` first). */
export const COMPILED_CLI = join(import.meta.dirname, '..', 'dist', 'src', 'cli', 'main.js');

/** `npm start`'s command line (package.json's start script), split into words. */
const START_WORDS: string[] = (() => {
  const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  return (manifest.scripts['start'] ?? '').split(/\s+/);
})();

/**
 * The Node options `npm start` gives the server, so that benchmarks measure the process users run.
 */
export const START_NODE_OPTIONS: string[] = START_WORDS.slice(
  START_WORDS.indexOf('node') + 1,
  START_WORDS.indexOf('dist/src/cli/main.js'),
).filter((word) => word.startsWith('--'));

/** The environment `npm start` sets before `node` (glibc's malloc settings). */
export const START_ENV: Record<string, string> = Object.fromEntries(
  START_WORDS.slice(0, Math.max(0, START_WORDS.indexOf('node')))
    .filter((word) => /^[A-Z_]+=/.test(word))
    .map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
);

/** Runs `archivist …args` on `dataDir`, as an administrator would: its output, or an error with its stderr. */
export function archivistCli(dataDir: string): (...args: string[]) => string {
  return (...args) => {
    const ran = spawnSync(process.execPath, [COMPILED_CLI, ...args], {
      env: { ...process.env, DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    if (ran.status !== 0) throw new Error(`archivist ${args.join(' ')} failed: ${ran.stderr}`);
    return ran.stdout.trim();
  };
}

/**
 * Starts the compiled server (`build()` first) as `npm start` would, with `env` added, and resolves
 * once `/api/v1/health` answers. `stop()` ends it.
 */
export async function serveCompiled(
  port: number,
  env: Record<string, string>,
): Promise<{ process: ChildProcess; stop(): Promise<void> }> {
  const server = spawn(process.execPath, [...START_NODE_OPTIONS, COMPILED_CLI, 'serve'], {
    env: { ...process.env, ...START_ENV, ...env, PORT: String(port) },
    stdio: 'ignore',
  });
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) break;
    if (server.exitCode !== null) throw new Error(`the server exited at start (code ${server.exitCode})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    process: server,
    async stop() {
      if (server.exitCode !== null) return;
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    },
  };
}

const benchMetadata = { now: new Date().toISOString(), actorId: 'bench', correlationId: 'bench' };

/** The six events of one task's whole life (created, started, three progress reports, completed). */
export function taskLifecycle(taskId: string) {
  return [
    { type: 'TaskCreated', data: { taskId, jobType: 'ingest', input: {} }, metadata: benchMetadata },
    { type: 'TaskStarted', data: { taskId, attempt: 1, workerId: 'w' }, metadata: benchMetadata },
    ...[0.25, 0.5, 0.75].map((progress) => ({
      type: 'TaskProgressed',
      data: { taskId, progress, message: null },
      metadata: benchMetadata,
    })),
    { type: 'TaskCompleted', data: { taskId, result: {} }, metadata: benchMetadata },
  ];
}
