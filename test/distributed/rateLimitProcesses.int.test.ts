import { childEnv } from '../support/childEnv.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/freePort.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'src', 'cli', 'main.ts');
const API = '/api/method/assistant.api';

interface ApiProcess {
  child: ChildProcess;
  origin: string;
  authorization: string;
  dataDir: string;
  log: string[];
}

type ErrorBody = { message: { success: boolean; data: null; error: { type: string; status_code: number } } };

/**
 * Two API processes — each the product's own entry (`archivist serve`) in a child process, with its
 * own data folder and stores, on one nats-server (BUS=nats) — serve one user: the rate limit of the
 * chat and conversation endpoints is one budget, whichever process answers.
 */
describe('distributed: one user’s rate limit shared by two API processes (BUS=nats)', function () {
  this.timeout(180_000);
  let nats: NatsServerHandle | null = null;
  const processes: ApiProcess[] = [];
  const user = `carol-${process.pid}-${Date.now()}`;

  async function startApi(natsUrl: string): Promise<ApiProcess> {
    const dataDir = await mkdtemp(join(tmpdir(), 'archivist-limits-'));
    const env = childEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', BUS: 'nats', NATS_URL: natsUrl });
    // The same user name in both (each process has its own event store): limits go by user name.
    const cli = (...args: string[]): string => {
      const ran = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], {
        env,
        encoding: 'utf8',
        cwd: ROOT,
      });
      if (ran.status !== 0) throw new Error(`archivist ${args.join(' ')}: ${ran.stderr}`);
      return ran.stdout.trim();
    };
    // A name of this run's own: the limits live in NATS, which CI shares with other suites that have
    // their own carol (her budget there may be spent within the minute).
    cli('users', 'add', user);
    const authorization = `token ${cli('users', 'key', user)}`;
    const port = await freePort();
    // Every role in each: with BUS=nats `serve` would run the API alone and leave projecting to a
    // projector process, and each process here has a data folder of its own.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, 'serve', '--roles', 'api,worker,projector'],
      {
        env: { ...env, PORT: String(port), PARSE_WORKERS: '1' },
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const log: string[] = [];
    const collect = (chunk: Buffer): void => {
      log.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      log.splice(0, Math.max(0, log.length - 100));
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    const origin = `http://127.0.0.1:${port}`;
    const started: ApiProcess = { child, origin, authorization, dataDir, log };
    processes.push(started);
    await eventually(
      async () => {
        if (child.exitCode !== null)
          throw new Error(`archivist serve exited (${child.exitCode}): ${log.join('\n')}`);
        // Serving, and its read models know carol's key (get_config counts against no limit).
        const ready = await fetch(`${origin}${API}.get_config`, {
          headers: { Authorization: authorization },
        }).then(
          (response) => response.ok,
          () => false,
        );
        return ready ? true : undefined;
      },
      90_000,
      'the API process is ready',
    );
    return started;
  }

  before(async function () {
    nats = await startNatsServer();
    if (!nats) {
      console.log(
        '      skipped: no nats-server on PATH and no NATS_URL: two API processes need a shared NATS',
      );
      this.skip();
    }
    await Promise.all([startApi(nats!.url), startApi(nats!.url)]);
  });

  after(async () => {
    for (const { child } of processes) {
      if (child.exitCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    for (const { dataDir } of processes.splice(0)) await rm(dataDir, { recursive: true, force: true });
    await nats?.dispose();
  });

  const list = (instance: number): Promise<Response> => {
    const target = processes[instance]!;
    return fetch(`${target.origin}${API}.list_conversations`, {
      headers: { Authorization: target.authorization },
    });
  };

  it('allows 100 requests split across both processes; the next is 429 from either, with Retry-After and the envelope', async () => {
    expect(processes[0]!.child.pid).to.not.equal(processes[1]!.child.pid);
    const remaining: number[] = [];
    for (let i = 0; i < 100; i += 1) {
      const response = await list(i % 2);
      expect(response.status, `request ${i + 1}`).to.equal(200);
      await response.arrayBuffer();
      expect(response.headers.get('x-ratelimit-limit')).to.equal('100');
      remaining.push(Number(response.headers.get('x-ratelimit-remaining')));
    }
    // One window: each answer counts the other process's requests too.
    expect(remaining).to.deep.equal(Array.from({ length: 100 }, (_, i) => 99 - i));
    for (const instance of [0, 1]) {
      const refused = await list(instance);
      expect(refused.status).to.equal(429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).to.be.within(1, 60);
      expect(refused.headers.get('x-ratelimit-remaining')).to.equal('0');
      const body = (await refused.json()) as ErrorBody;
      expect(body.message).to.include({ success: false, data: null });
      expect(body.message.error).to.include({ type: 'rate_limited', status_code: 429 });
    }
  });
});
