/**
 * A real PostgreSQL for server-backed tests and benchmarks. `POSTGRES_URL` points them at an existing
 * server (which they cannot stop, nor read the files of); otherwise the PostgreSQL 15 binaries
 * (Debian `postgresql-15`) start a private server on a free port in a temporary folder. PostgreSQL
 * refuses to run as root: as root, the folder is given to the `postgres` user and the server runs
 * as that user.
 */
import { execFile, spawnSync } from 'node:child_process';
import { accessSync, chownSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './freePort.js';

const run = promisify(execFile);

/** Where Debian puts the PostgreSQL 15 server binaries; POSTGRES_BIN overrides it. */
export const POSTGRES_BIN = process.env['POSTGRES_BIN'] ?? '/usr/lib/postgresql/15/bin';

/**
 * Server settings under which `scrub()` can leave nothing of a deleted stream in the files: old WAL
 * segments are deleted rather than recycled (a recycled segment keeps its old bytes under a new
 * name until overwritten), and no WAL is kept beyond the last checkpoint.
 */
export const SCRUB_SERVER_SETTINGS: readonly string[] = [
  'wal_recycle=off',
  'wal_keep_size=0',
  'min_wal_size=32MB',
  'max_wal_size=64MB',
];

export interface PostgresServerHandle {
  /** Connection string of the `postgres` database, e.g. `postgres://archivist@127.0.0.1:5433/postgres`. */
  url: string;
  /** `PostgreSQL 15.18`, as the server reports itself. */
  version: string;
  /** False for a server given by `POSTGRES_URL`: it cannot be stopped, and its files are not ours to read. */
  controllable: boolean;
  /** The server's data directory (null for `POSTGRES_URL`). */
  dataDir: string | null;
  /** Stops the server at once, like a crash (`pg_ctl stop -m immediate`); the data is kept. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data (after crash recovery). */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  dispose(): Promise<void>;
}

export interface StartPostgresOptions {
  /**
   * Start a server of our own even when `POSTGRES_URL` is set, for tests that stop it or read its
   * files. Without the binaries this falls back to `POSTGRES_URL` (not controllable).
   */
  own?: boolean;
}

function binariesMissing(): string | null {
  try {
    accessSync(join(POSTGRES_BIN, 'postgres'), constants.X_OK);
  } catch {
    return `no PostgreSQL binaries in ${POSTGRES_BIN} (apt-get install postgresql-15) and POSTGRES_URL is not set`;
  }
  if (userInfo().uid === 0 && runAsPostgresUid() === null)
    return 'running as root, and there is no `postgres` user to run the server as';
  return null;
}

/** The uid and gid of the `postgres` user, for handing it the server's folder when we are root. */
function runAsPostgresUid(): { uid: number; gid: number } | null {
  const id = (flag: string): number =>
    Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout);
  const [uid, gid] = [id('-u'), id('-g')];
  return uid > 0 && gid > 0 ? { uid, gid } : null;
}

/** Runs a PostgreSQL binary, as `postgres` when we are root (the server refuses to run as root). */
async function pgBinary(name: string, args: string[], timeoutMs = 60_000): Promise<string> {
  const binary = join(POSTGRES_BIN, name);
  const [command, argv] =
    userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
  const { stdout } = await run(command, argv, { timeout: timeoutMs, encoding: 'utf8' });
  return stdout;
}

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return `PostgreSQL ${(rows[0]?.server_version ?? '?').split(' ')[0]}`;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Starts (or points at) a PostgreSQL server; null, with the reason printed, when impossible. */
export async function startPostgresServer(
  options: StartPostgresOptions = {},
): Promise<PostgresServerHandle | null> {
  const external = process.env['POSTGRES_URL'];
  const missing = binariesMissing();
  if (external && (!options.own || missing)) {
    try {
      const version = await serverVersion(external);
      const refuse = (): Promise<void> =>
        Promise.reject(new Error('the server given by POSTGRES_URL cannot be stopped or started by tests'));
      return {
        url: external,
        version,
        controllable: false,
        dataDir: null,
        stop: refuse,
        start: refuse,
        dispose: async () => {},
      };
    } catch (error) {
      console.log(
        `      skipped: no PostgreSQL server (POSTGRES_URL does not answer: ${(error as Error).message})`,
      );
      return null;
    }
  }
  if (missing) {
    console.log(`      skipped: no PostgreSQL server (${missing})`);
    return null;
  }

  const dir = mkdtempSync(join(tmpdir(), 'archivist-pg-'));
  const dataDir = join(dir, 'data');
  const owner = userInfo().uid === 0 ? runAsPostgresUid() : null;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const port = await freePort();
  const serverOptions = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c max_connections=300',
    ...SCRUB_SERVER_SETTINGS.map((setting) => `-c ${setting}`),
  ].join(' ');
  let running = false;

  async function start(): Promise<void> {
    await pgBinary('pg_ctl', [
      '-D',
      dataDir,
      '-o',
      serverOptions,
      '-l',
      join(dir, 'log'),
      '-w',
      '-t',
      '60',
      'start',
    ]);
    running = true;
  }
  async function stop(): Promise<void> {
    if (!running) return;
    running = false;
    await pgBinary('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
  }
  const killOnExit = (): void => {
    // A test run that ends abruptly must not leave a server behind holding the folder.
    try {
      const binary = join(POSTGRES_BIN, 'pg_ctl');
      const args = ['-D', dataDir, '-m', 'immediate', 'stop'];
      if (running)
        spawnSync(owner ? 'runuser' : binary, owner ? ['-u', 'postgres', '--', binary, ...args] : args);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  process.once('exit', killOnExit);

  try {
    await pgBinary('initdb', [
      '-D',
      dataDir,
      '-A',
      'trust',
      '-U',
      'archivist',
      '-E',
      'UTF8',
      '--locale=C',
      '-N',
    ]);
    await start();
  } catch (error) {
    const log = (() => {
      try {
        return readFileSync(join(dir, 'log'), 'utf8').slice(-2_000);
      } catch {
        return '';
      }
    })();
    console.log(`      skipped: no PostgreSQL server (it did not start: ${(error as Error).message} ${log})`);
    killOnExit();
    process.removeListener('exit', killOnExit);
    return null;
  }
  const url = `postgres://archivist@127.0.0.1:${port}/postgres`;
  return {
    url,
    version: await serverVersion(url),
    controllable: true,
    dataDir,
    stop,
    start,
    async dispose() {
      if (running) {
        running = false;
        await pgBinary('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']).catch(() => {});
      }
      rmSync(dir, { recursive: true, force: true });
      process.removeListener('exit', killOnExit);
    },
  };
}

let schemaCounter = 0;

/** A schema name no other fixture uses, so suites sharing one server never see each other's events. */
export function uniqueSchema(prefix = 'es'): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${(schemaCounter += 1)}`;
}

/** Drops a fixture's schema and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema.replaceAll('"', '""')}" CASCADE`);
  } finally {
    await client.end().catch(() => {});
  }
}
