import { childEnv } from '../support/childEnv.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startMongo, type MongoHandle } from '../support/ferretDb.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { eventually, sleep } from '../support/eventually.js';
import { startCpuLoad } from '../support/cpuLoad.js';

const fixture = join(import.meta.dirname, 'fixtures', 'role.ts');
const documents = join(import.meta.dirname, '..', 'fixtures', 'documents', 'text');
/** Waits for `probe`, treating a failed probe (a process not listening yet) as "not yet". */
const until = <T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> =>
  eventually(() => probe().catch(() => undefined), timeoutMs, what);

interface Role {
  name: string;
  child: ChildProcess;
  url: string | null;
  /** The process's latest log lines, printed when a test fails. */
  log: string[];
}

describe('distributed: API, worker and projector processes on NATS and a MongoDB-wire read store', function () {
  this.timeout(240_000);
  let nats: NatsServerHandle | null = null;
  let mongo: MongoHandle | null = null;
  let dataDir = '';
  const roles: Role[] = [];
  let env: Record<string, string> = {};

  before(async function () {
    // Servers of its own where it can (even when NATS_URL / MONGODB_URL are set): it stops them.
    [nats, mongo] = await Promise.all([startNatsServer({ own: true }), startMongo({ own: true })]);
    if (!nats || !mongo) {
      console.log(
        '      skipped: the multi-process test needs a nats-server and a MongoDB-wire server (FerretDB)',
      );
      this.skip();
    }
    dataDir = mkdtempSync(join(tmpdir(), 'archivist-multi-'));
    env = {
      EVENT_STORE: 'file',
      DATA_DIR: dataDir,
      EVENT_STORE_POLL_MS: '100',
      BUS: 'nats',
      NATS_URL: nats!.url,
      READ_STORE: 'mongodb',
      MONGODB_URL: mongo!.url,
      MONGODB_DATABASE: `multi_${process.pid}_${Date.now()}`,
      PORT: '0',
      LOG_LEVEL: 'info',
      TASK_HEARTBEAT_MS: '200',
      PARSE_WORKERS: '1',
    };
  });

  after(async () => {
    for (const role of roles.splice(0)) role.child.kill('SIGKILL');
    await nats?.dispose();
    await mongo?.dispose();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(name: string, role: 'api' | 'worker' | 'projector'): Promise<Role> {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, role], {
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log: string[] = [];
    const url = await new Promise<string>((resolve, reject) => {
      const collect = (chunk: Buffer): void => {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
          const ready = /^ready (\S+)/.exec(line);
          if (ready) resolve(ready[1]!);
          else if (!line.includes('"msg":"request"')) log.push(line.slice(0, 400));
        }
        log.splice(0, Math.max(0, log.length - 200));
      };
      child.stdout!.on('data', collect);
      child.stderr!.on('data', collect);
      child.once('close', (code) =>
        reject(new Error(`${name} exited with ${code} before it was ready:\n${log.join('\n')}`)),
      );
    });
    const started = { name, child, url: role === 'api' ? url : null, log };
    roles.push(started);
    return started;
  }

  afterEach(function () {
    if (this.currentTest?.state !== 'failed') return;
    for (const role of roles)
      console.log(
        `      --- last log lines of ${role.name} ---\n${role.log.map((line) => `      ${line}`).join('\n')}`,
      );
  });

  async function json(
    url: string,
    init?: RequestInit,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  const createTask = (api: Role, input: Record<string, unknown>) =>
    json(`${api.url}/api/v1/test/tasks`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
  const task = async (api: Role, id: string) => (await json(`${api.url}/api/v1/tasks/${id}`)).body;
  const component = async (api: Role, name: string) => {
    const { body } = await json(`${api.url}/api/v1/health/ready`);
    return (body['components'] as Array<{ name: string; healthy: boolean; reason: string | null }>).find(
      (c) => c.name === name,
    )!;
  };

  let apiA: Role;
  let apiB: Role;
  let worker: Role;

  it('runs a task created through one API instance in the worker, visible with its progress through the other', async () => {
    await start('projector', 'projector');
    worker = await start('worker-1', 'worker');
    [apiA, apiB] = await Promise.all([start('api-a', 'api'), start('api-b', 'api')]);

    // Under load made here: this healthy attempt must run to its end, never superseded (it was, on a
    // loaded machine, when its lease was renewed only once the attempt had begun).
    const load = startCpuLoad(2);
    const created = await createTask(apiA, { steps: 20, stepMs: 100 });
    expect(created.status).to.equal(201);
    const id = String(created.body['task_id']);
    // Read-your-writes across processes: the other instance already sees it.
    expect((await task(apiB, id))['task_id']).to.equal(id);

    const seenProgress = new Set<number>();
    const done = await until(
      async () => {
        const current = await task(apiB, id);
        seenProgress.add(current['progress'] as number);
        return current['status'] === 'completed' ? current : undefined;
      },
      60_000,
      'the task to complete',
    ).finally(() => load.stop());
    expect(done['result']).to.deep.include({ steps: 20, resumedAtStep: 0 });
    expect(done['attempt']).to.equal(1);
    expect(
      [...seenProgress].some((progress) => progress > 0 && progress < 1),
      `progress seen: ${[...seenProgress].join(', ')}`,
    ).to.equal(true);
    expect((await task(apiA, id))['status']).to.equal('completed');
    // A serve-only process reports every projection, applied by the projector process.
    const stats = await json(`${apiA.url}/api/v1/health/stats`);
    const projections = stats.body['projections'] as Array<{
      name: string;
      state: string;
      holder: string | null;
    }>;
    expect(projections.map((projection) => projection.name)).to.include.members(['tasks', 'knowledge']);
    for (const projection of projections) {
      expect(projection.state, projection.name).to.equal('applied_elsewhere');
      expect(projection.holder, projection.name).to.be.a('string');
    }
    expect(stats.body['projections_state']).to.equal('live');
  });

  it('follows the task live over SSE from the other instance', async () => {
    const created = await createTask(apiA, { steps: 5, stepMs: 100 });
    const id = String(created.body['task_id']);
    const response = await fetch(`${apiB.url}/api/v1/tasks/${id}/events`, {
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    const types = [...text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    expect(types[0]).to.equal('TaskCreated');
    expect(types.filter((type) => type === 'TaskProgressed')).to.have.length(5);
    expect(types.at(-1)).to.equal('TaskCompleted');
  });

  it('keeps each API and worker process’s embedded vectors in a folder of its own, all following the log', async () => {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(join(documents, 'readme.md'))]), 'readme.md');
    const response = await fetch(`${apiA.url}/api/v1/upload`, {
      method: 'POST',
      body: form,
      signal: AbortSignal.timeout(60_000),
    });
    expect(response.status).to.equal(200);
    const uploaded = (await response.json()) as { success: boolean; chunks_added: number };
    expect(uploaded.success).to.equal(true);
    const vectors = async (api: Role) =>
      Number(/(\d+) vectors/.exec((await component(api, 'vector_store')).reason ?? '')?.[1]);
    for (const api of [apiA, apiB]) {
      await until(
        async () => ((await vectors(api)) === uploaded.chunks_added ? true : undefined),
        30_000,
        `${api.name} to hold the upload's ${uploaded.chunks_added} vectors`,
      );
    }
    // The worker's too: the knowledge tools it runs search both halves.
    const created = await createTask(apiA, { job: 'vector-count', expected: uploaded.chunks_added });
    expect(created.status).to.equal(201);
    const counted = await until(
      async () => {
        const current = await task(apiB, String(created.body['task_id']));
        return current['status'] === 'completed' || current['status'] === 'failed' ? current : undefined;
      },
      40_000,
      'the vector-count task to end',
    );
    expect(counted['result']).to.deep.equal({ pid: worker.child.pid, vectors: uploaded.chunks_added });
    // One holds DATA_DIR/vectors; the others wrote a replica of their own instead of the same log.
    const folders = readdirSync(dataDir).filter((name) => name.startsWith('vectors'));
    const followers = [worker, apiA, apiB].map((role) => role.child.pid);
    const replicaOwners = folders.flatMap((name) => {
      const owner = /^vectors\.replica-(\d+)-1$/.exec(name);
      return owner ? [Number(owner[1])] : [];
    });
    expect(folders).to.have.length(3);
    expect(folders).to.include('vectors');
    expect(replicaOwners).to.have.length(2);
    for (const owner of replicaOwners) expect(followers).to.include(owner);
  });

  it('redelivers the job of a worker killed mid-task, and the task completes, resumed from its progress, under CPU load', async () => {
    // The load this must hold under is made here: a healthy attempt must never be superseded.
    const load = startCpuLoad(2);
    try {
      const created = await createTask(apiA, { steps: 30, stepMs: 100 });
      const id = String(created.body['task_id']);
      await until(
        async () => ((await task(apiB, id))['progress'] as number) >= 0.2 || undefined,
        20_000,
        'progress on worker 1',
      );
      worker.child.kill('SIGKILL');
      await new Promise((resolve) => worker.child.once('exit', resolve));
      worker = await start('worker-2', 'worker');
      const done = await until(
        async () => {
          const current = await task(apiA, id);
          return current['status'] === 'completed' || current['status'] === 'failed' ? current : undefined;
        },
        45_000,
        'the task to finish after the worker was killed',
      );
      expect(done['status']).to.equal('completed');
      expect(done['attempt']).to.be.at.least(2);
      expect((done['result'] as { resumedAtStep: number }).resumedAtStep).to.be.at.least(6);
    } finally {
      load.stop();
    }
  });

  it('reports a stopped read store in readiness, answers 503 while it is down, and recovers when it returns', async function () {
    if (!mongo!.managed) {
      console.log('      skipped: the read store came from MONGODB_URL and cannot be stopped from here');
      this.skip();
    }
    await mongo!.stop();
    const down = await until(
      async () => {
        const readStore = await component(apiA, 'read_store');
        return readStore.healthy ? undefined : readStore;
      },
      20_000,
      'readiness to report the read store down',
    );
    expect(down.reason).to.be.a('string').and.not.empty;
    const refused = await json(`${apiA.url}/api/v1/tasks`);
    expect(refused.status).to.equal(503);
    expect(refused.body).to.include({ error: 'service_unavailable', status_code: 503 });

    await mongo!.restart();
    await until(
      async () => ((await json(`${apiA.url}/api/v1/tasks`)).status === 200 ? true : undefined),
      60_000,
      'the API to serve again',
    );
    const created = await createTask(apiA, { steps: 3, stepMs: 50 });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = String(created.body['task_id']);
    await until(
      async () => ((await task(apiB, id))['status'] === 'completed' ? true : undefined),
      60_000,
      'a task after the read store came back',
    );
  });

  it('accepts work while NATS is down, reports it, and carries the work out once NATS is back', async function () {
    if (!nats!.controllable) {
      console.log('      skipped: NATS came from NATS_URL and cannot be stopped from here');
      this.skip();
    }
    await nats!.stop();
    const down = await until(
      async () => {
        const bus = await component(apiA, 'bus');
        return bus.healthy ? undefined : bus;
      },
      20_000,
      'readiness to report the bus down',
    );
    expect(down.reason).to.be.a('string').and.not.empty;
    // The task is accepted (its event is stored) even though it cannot be dispatched yet.
    const created = await createTask(apiA, { steps: 3, stepMs: 50 });
    expect(created.status).to.equal(201);
    const id = String(created.body['task_id']);
    // Seen through the other instance once the projector has it (seconds on a loaded machine), and
    // still pending: nothing could dispatch it.
    const seen = await until(
      async () => {
        const found = await task(apiB, id);
        return found['status'] ? found : undefined;
      },
      30_000,
      'the task to be visible through the other instance',
    );
    await sleep(1_000);
    expect(seen['status']).to.equal('pending');
    expect((await task(apiB, id))['status']).to.equal('pending');

    await nats!.restart();
    await until(
      async () => ((await component(apiA, 'bus')).healthy ? true : undefined),
      60_000,
      'the bus to come back',
    );
    await until(
      async () => ((await task(apiB, id))['status'] === 'completed' ? true : undefined),
      60_000,
      'the accepted task to complete after NATS returned',
    );
  });
});
