/**
 * A real nats-server with JetStream for server-backed tests and benchmarks. `NATS_URL` points the
 * tests at an existing server (which they cannot stop); otherwise `nats-server` from PATH (Debian
 * package) is started on a free port with a temporary store directory.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './freePort.js';

export interface NatsServerHandle {
  url: string;
  /** False for a server given by `NATS_URL`: stop/restart are not possible then. */
  controllable: boolean;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s); the store directory is kept. */
  stop(): Promise<void>;
  /** Stops the server if it runs, then starts it again on the same port and store directory. */
  restart(): Promise<void>;
  /** Stops the server and removes its store directory. */
  dispose(): Promise<void>;
}

function accepts(port: number, host = '127.0.0.1'): Promise<boolean> {
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

function hasBinary(): boolean {
  return spawnSync('nats-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

export interface StartNatsOptions {
  /**
   * Start a server of our own even when `NATS_URL` is set, so that the test can stop and restart it
   * (outage tests). Without a `nats-server` binary this falls back to `NATS_URL`.
   */
  own?: boolean;
}

/** Starts (or points at) a JetStream-enabled nats-server; null, with the reason printed, when impossible. */
export async function startNatsServer(options: StartNatsOptions = {}): Promise<NatsServerHandle | null> {
  const external = process.env['NATS_URL'];
  if (external && !(options.own && hasBinary())) {
    const first = new URL((external.split(',')[0] ?? '').trim().replace(/^(?!\w+:\/\/)/, 'nats://'));
    if (!(await accepts(Number(first.port || 4222), first.hostname))) {
      console.log(`skipped: NATS_URL=${external} does not accept connections`);
      return null;
    }
    const refuse = (): Promise<void> =>
      Promise.reject(new Error('the server given by NATS_URL cannot be stopped or restarted by tests'));
    return { url: external, controllable: false, stop: refuse, restart: refuse, dispose: async () => {} };
  }
  if (!hasBinary()) {
    console.log('skipped: no nats-server binary on PATH and NATS_URL is not set');
    return null;
  }
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'archivist-nats-'));
  let child: ChildProcess | null = null;
  let output = '';

  const killOnExit = (): void => {
    child?.kill('SIGKILL');
    rmSync(storeDir, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);

  async function start(): Promise<void> {
    output = '';
    const started = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-4_000);
    };
    started.stdout?.on('data', keep);
    started.stderr?.on('data', keep);
    child = started;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (started.exitCode !== null) break;
      if (await accepts(port)) return;
      await sleep(50);
    }
    started.kill('SIGKILL');
    child = null;
    throw new Error(`nats-server did not start on port ${port}:\n${output}`);
  }

  async function stop(): Promise<void> {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    const killer = setTimeout(() => running.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  }

  try {
    await start();
  } catch (error) {
    console.log(`skipped: ${(error as Error).message}`);
    killOnExit();
    process.removeListener('exit', killOnExit);
    return null;
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    controllable: true,
    stop,
    async restart() {
      await stop();
      await start();
    },
    async dispose() {
      await stop();
      rmSync(storeDir, { recursive: true, force: true });
      process.removeListener('exit', killOnExit);
    },
  };
}
