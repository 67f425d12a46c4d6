import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { childEnv } from './childEnv.js';
import { parseEnvFile } from './cluster.js';

const run = promisify(execFile);
const script = join(import.meta.dirname, '..', '..', 'scripts', 'cluster.sh');

/** A cluster started by `scripts/cluster.sh`, controlled process by process. */
export interface ClusterHandle {
  dir: string;
  /** What `DIR/cluster.env` exports: the engines' addresses, API_URLS, API_KEY. */
  env: Record<string, string>;
  apiUrls: string[];
  apiKey: string;
  /** The processes it started, by name (`api-1`, `worker-2`, `postgres`, `nats`…). */
  names(): string[];
  alive(name: string): boolean;
  pid(name: string): number | null;
  stop(name: string, signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  start(name: string): Promise<void>;
  down(): Promise<void>;
}

/** Why no cluster can run here, or null when every engine it needs is installed. */
export function clusterUnavailable(): string | null {
  const pgBin = process.env['POSTGRES_BIN'] ?? '/usr/lib/postgresql/15/bin';
  if (!existsSync(join(pgBin, 'postgres'))) return `no PostgreSQL 15 binaries in ${pgBin}`;
  const ferret = process.env['FERRETDB_BIN'] ?? join(process.env['HOME'] ?? '/root', 'go', 'bin', 'ferretdb');
  if (!existsSync(ferret)) return `no FerretDB at ${ferret}`;
  const path = (process.env['PATH'] ?? '').split(':');
  if (!path.some((folder) => existsSync(join(folder, 'nats-server')))) return 'no nats-server on PATH';
  return null;
}

export const readClusterEnv = (file: string): Record<string, string> =>
  parseEnvFile(readFileSync(file, 'utf8'));

/**
 * Starts the distributed profile in `dir` with `scripts/cluster.sh up`; `env` reaches every role
 * (the caller's environment does too, without the engine addresses CI exports for other suites).
 */
export async function startCluster(dir: string, env: Record<string, string> = {}): Promise<ClusterHandle> {
  const processEnv = childEnv(env);
  const cluster = (...args: string[]) =>
    run('bash', [script, ...args], { env: processEnv, maxBuffer: 16 * 1024 * 1024, timeout: 300_000 });
  try {
    await cluster('up', dir);
  } catch (error) {
    await cluster('down', dir).catch(() => undefined);
    throw new Error(`cluster did not start: ${(error as { stderr?: string }).stderr ?? String(error)}`);
  }
  const clusterEnv = readClusterEnv(join(dir, 'cluster.env'));
  const pidFile = (name: string): string => join(dir, 'pids', `${name}.pid`);
  const pid = (name: string): number | null =>
    existsSync(pidFile(name)) ? Number(readFileSync(pidFile(name), 'utf8').trim()) : null;
  return {
    dir,
    env: clusterEnv,
    apiUrls: clusterEnv['API_URLS']!.split(' '),
    apiKey: clusterEnv['API_KEY']!,
    names: () => readdirSync(join(dir, 'launch')).map((file) => file.replace(/\.sh$/, '')),
    alive(name) {
      const id = pid(name);
      if (id === null) return false;
      try {
        process.kill(id, 0);
        return true;
      } catch {
        return false;
      }
    },
    pid,
    async stop(name, signal = 'SIGTERM') {
      await cluster('stop', dir, name, signal);
    },
    async start(name) {
      await cluster('start', dir, name);
    },
    async down() {
      await cluster('down', dir);
    },
  };
}
