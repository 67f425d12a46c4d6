/**
 * A Milvus server for tests: the one in `MILVUS_URL` when set, otherwise Milvus Lite (PyPI
 * `milvus-lite==2.5.1`, whose wheel carries the server binary) started on a free port with a
 * temporary database file.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseMilvusUrl } from '../../src/vector/milvusUrl.js';
import { freePort } from './freePort.js';

export interface MilvusHandle {
  /** e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** False for a server given by `MILVUS_URL`: it cannot be stopped or restarted from here. */
  managed: boolean;
  /** Stops the server (SIGTERM, or SIGKILL as a crash) and keeps its data and port for `restart()`. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Starts it again (stopping it first if it runs) on the same port with the same data. */
  restart(): Promise<void>;
  /** Freezes the server (SIGSTOP): it keeps its connections but answers nothing until `resume()`. */
  pause(): void;
  resume(): void;
  /** Stops it for good and removes its data. */
  dispose(): Promise<void>;
}

export const NO_MILVUS =
  'no Milvus server (set MILVUS_URL, or pip install milvus-lite==2.5.1 for a Milvus Lite of its own)';

const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 8_000;

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.setTimeout(2_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** MILVUS_LITE_BIN, else the binary inside the installed `milvus_lite` Python package. */
export function findMilvusLite(): string | null {
  const configured = process.env['MILVUS_LITE_BIN'];
  if (configured) return isExecutable(configured) ? configured : null;
  const found = spawnSync(
    'python3',
    [
      '-c',
      'import milvus_lite, os; print(os.path.join(os.path.dirname(milvus_lite.__file__), "lib", "milvus"))',
    ],
    { encoding: 'utf8', timeout: 10_000 },
  );
  const path = found.status === 0 ? found.stdout.trim() : '';
  return path && isExecutable(path) ? path : null;
}

// The server runs under a small shell guard that stops it when our end of its stdin closes: on
// `stop()`, and also when the test process dies without cleaning up (even by SIGKILL).
const GUARD = `exec 3<&0
"$0" "$@" <&- 3<&- & server=$!
( read -r _ <&3; kill -TERM "$server" 2>/dev/null ) & reader=$!
exec 3<&-
wait "$server"; code=$?
kill "$reader" 2>/dev/null
exit "$code"`;

async function startLite(binary: string): Promise<MilvusHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'archivist-milvus-'));
  const logPath = join(dir, 'milvus.log');
  const port = await freePort();
  let child: ChildProcess | null = null;

  const signalServer = (process: ChildProcess, signal: NodeJS.Signals) => {
    // The group: the guard shell and the server under it.
    try {
      if (process.pid) globalThis.process.kill(-process.pid, signal);
    } catch {
      // already gone
    }
  };
  const cleanUpOnExit = () => {
    if (child) signalServer(child, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', cleanUpOnExit);

  const launch = async (): Promise<void> => {
    const log = openSync(logPath, 'a');
    // Milvus Lite is started from the database file's folder, with its libraries beside the binary.
    const started = spawn(
      '/bin/sh',
      ['-c', GUARD, binary, join(dir, 'milvus.db'), `127.0.0.1:${port}`, 'ERROR'],
      {
        cwd: dir,
        env: { ...process.env, LD_LIBRARY_PATH: dirname(binary) },
        stdio: ['pipe', log, log],
        detached: true,
      },
    );
    closeSync(log);
    child = started;
    let exited = false;
    started.once('exit', () => (exited = true));
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await accepts('127.0.0.1', port))) {
      if (exited || Date.now() > deadline) {
        signalServer(started, 'SIGKILL');
        child = null;
        throw new Error(
          `Milvus Lite did not start on port ${port}: ${readFileSync(logPath, 'utf8').slice(-600)}`,
        );
      }
      await sleep(25);
    }
  };

  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    if (signal === 'SIGKILL') signalServer(running, 'SIGKILL');
    else {
      signalServer(running, 'SIGCONT');
      running.stdin?.end();
    }
    const timer = setTimeout(() => signalServer(running, 'SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  try {
    await launch();
  } catch (error) {
    process.removeListener('exit', cleanUpOnExit);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    managed: true,
    stop,
    async restart() {
      await stop();
      await launch();
    },
    pause: () => child && signalServer(child, 'SIGSTOP'),
    resume: () => child && signalServer(child, 'SIGCONT'),
    async dispose() {
      await stop();
      process.removeListener('exit', cleanUpOnExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The server for Milvus-backed tests, or null (with the reason printed as `skipped: …`) when there
 * is none. `own`: a Milvus Lite of our own even when MILVUS_URL is set, so that the test can stop
 * and restart it (outage tests). Call `dispose()` when done.
 */
export async function startMilvus(options: { own?: boolean } = {}): Promise<MilvusHandle | null> {
  const url = process.env['MILVUS_URL'];
  const binary = findMilvusLite();
  if (url && !(options.own && binary)) {
    const { address } = parseMilvusUrl(url);
    const [host, port] = [
      address.slice(0, address.lastIndexOf(':')),
      address.slice(address.lastIndexOf(':') + 1),
    ];
    // An explicit server that does not answer is a failure, not a reason to skip.
    if (!(await accepts(host.replace(/^\[|\]$/g, ''), Number(port)))) {
      throw new Error(`MILVUS_URL=${url} does not accept connections`);
    }
    const refuse = async () => {
      throw new Error('a server given by MILVUS_URL cannot be stopped or restarted by the tests');
    };
    const cannot = () => {
      throw new Error('a server given by MILVUS_URL cannot be paused by the tests');
    };
    return {
      url,
      managed: false,
      stop: refuse,
      restart: refuse,
      pause: cannot,
      resume: cannot,
      dispose: async () => undefined,
    };
  }
  if (!binary) {
    console.log(`skipped: ${NO_MILVUS}`);
    return null;
  }
  return startLite(binary);
}
