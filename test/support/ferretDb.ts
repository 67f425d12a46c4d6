/**
 * A MongoDB-protocol server for tests: the one in `MONGODB_URL` when set, otherwise a FerretDB v1
 * (SQLite backend) started on a free port with a temporary data folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { freePort } from './freePort.js';

export interface MongoHandle {
  /** Connection string, e.g. `mongodb://127.0.0.1:40123/`. */
  url: string;
  kind: 'mongodb' | 'ferretdb';
  /** False for a server given by `MONGODB_URL`: it cannot be stopped or restarted from here. */
  managed: boolean;
  /** Stops the server and keeps its data and port for `restart()`. */
  stop(): Promise<void>;
  /** Starts it again (stopping it first if it runs) on the same port with the same data. */
  restart(): Promise<void>;
  /** Stops it for good and removes its data. */
  dispose(): Promise<void>;
}

const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 8_000;

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** FERRETDB_BIN, then the `go install` locations, then PATH. */
function findFerretDb(): { path: string } | { reason: string } {
  const configured = process.env['FERRETDB_BIN'];
  if (configured)
    return isExecutable(configured)
      ? { path: configured }
      : { reason: `FERRETDB_BIN=${configured} is not executable` };
  const candidates = [
    ...(process.env['GOBIN'] ? [join(process.env['GOBIN'], 'ferretdb')] : []),
    join(process.env['GOPATH'] ?? join(homedir(), 'go'), 'bin', 'ferretdb'),
    ...(process.env['PATH'] ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => join(dir, 'ferretdb')),
  ];
  const found = candidates.find(isExecutable);
  return found
    ? { path: found }
    : {
        reason:
          'no MongoDB server: MONGODB_URL is not set and no ferretdb binary was found (FERRETDB_BIN, ~/go/bin, PATH; ' +
          'go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2)',
      };
}

async function ping(url: string, timeoutMs: number): Promise<Record<string, unknown>> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs });
  try {
    await client.db('admin').command({ ping: 1 });
    return await client.db('admin').command({ buildInfo: 1 });
  } finally {
    await client.close().catch(() => undefined);
  }
}

function external(url: string): Promise<MongoHandle> {
  return ping(url, 5_000).then(
    (info) => {
      const refuse = async () => {
        throw new Error('a server given by MONGODB_URL cannot be stopped or restarted by the tests');
      };
      return {
        url,
        kind: typeof info['ferretdbVersion'] === 'string' ? 'ferretdb' : 'mongodb',
        managed: false,
        stop: refuse,
        restart: refuse,
        dispose: async () => undefined,
      };
    },
    (error: unknown) => {
      // An explicit server that does not answer is a failure, not a reason to skip.
      throw new Error(`MONGODB_URL does not answer: ${(error as Error).message}`);
    },
  );
}

// The server runs under a small shell guard that stops it when our end of its stdin closes: on
// `stop()`, and also when the test process dies without cleaning up (even by SIGKILL).
// (A background job's stdin is /dev/null unless redirected, hence fd 3.)
const GUARD = `exec 3<&0
"$0" "$@" <&- 3<&- & server=$!
( read -r _ <&3; kill -TERM "$server" 2>/dev/null ) & reader=$!
exec 3<&-
wait "$server"; code=$?
kill "$reader" 2>/dev/null
exit "$code"`;

async function startFerretDb(binary: string): Promise<MongoHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'archivist-ferretdb-'));
  const logPath = join(dir, 'ferretdb.log');
  let port = await freePort();
  let child: ChildProcess | null = null;
  const url = () => `mongodb://127.0.0.1:${port}/`;
  const killGroup = (process: ChildProcess) => {
    try {
      if (process.pid) globalThis.process.kill(-process.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };

  const cleanUpOnExit = () => {
    if (child) killGroup(child);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', cleanUpOnExit);

  const launch = async (): Promise<void> => {
    const log = openSync(logPath, 'a');
    const args = [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/`,
      `--listen-addr=127.0.0.1:${port}`,
      `--state-dir=${dir}`,
      '--telemetry=disable',
      '--debug-addr=-',
      '--log-level=warn',
    ];
    const started = spawn('/bin/sh', ['-c', GUARD, binary, ...args], {
      stdio: ['pipe', log, log],
      detached: true,
    });
    closeSync(log);
    child = started;
    let exited = false;
    started.once('exit', () => (exited = true));
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (exited) {
        child = null;
        throw new Error(`ferretdb exited at start: ${readFileSync(logPath, 'utf8').slice(-600)}`);
      }
      try {
        await ping(url(), 300);
        return;
      } catch (error) {
        if (Date.now() > deadline) {
          killGroup(started);
          child = null;
          throw new Error(`ferretdb did not answer in time: ${(error as Error).message}`);
        }
        await sleep(100);
      }
    }
  };

  const stop = async (): Promise<void> => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.stdin?.end();
    const timer = setTimeout(() => killGroup(running), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  // Another process may take the free port between the probe and the start: try a few ports.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await launch();
      break;
    } catch (error) {
      if (attempt >= 3) {
        process.removeListener('exit', cleanUpOnExit);
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      port = await freePort();
    }
  }

  return {
    url: url(),
    kind: 'ferretdb',
    managed: true,
    stop,
    async restart() {
      await stop();
      await launch();
    },
    async dispose() {
      await stop();
      process.removeListener('exit', cleanUpOnExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The server for MongoDB-backed tests, or null (with the reason printed as `skipped: …`) when there is
 * none. Call `dispose()` when done.
 */
export async function startMongo(options: { own?: boolean } = {}): Promise<MongoHandle | null> {
  const url = process.env['MONGODB_URL'];
  const binary = findFerretDb();
  // `own`: a FerretDB of our own even when MONGODB_URL is set, so that the test can stop and
  // restart it (outage tests); without a binary, the MONGODB_URL server.
  if (url && !(options.own && 'path' in binary)) return external(url);
  if ('reason' in binary) {
    console.log(`skipped: ${binary.reason}`);
    return null;
  }
  return startFerretDb(binary.path);
}
