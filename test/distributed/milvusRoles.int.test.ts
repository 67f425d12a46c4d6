import { childEnv } from '../support/childEnv.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { silentLogger } from '../../src/log.js';
import { createMongoReadStore } from '../../src/readStore/mongoReadStore.js';
import { createMilvusIndex } from '../../src/vector/milvusIndex.js';
import { eventually } from '../support/eventually.js';
import { startMongo, type MongoHandle } from '../support/ferretDb.js';
import { startMilvus, type MilvusHandle } from '../support/milvusLite.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';

const fixture = join(import.meta.dirname, 'fixtures', 'role.ts');
const documents = join(import.meta.dirname, '..', 'fixtures', 'documents', 'text');

interface Role {
  name: string;
  child: ChildProcess;
  url: string | null;
  log: string[];
}

describe('distributed: the vector index in Milvus, kept by the projector role and searched by the API', function () {
  this.timeout(240_000);
  let nats: NatsServerHandle | null = null;
  let mongo: MongoHandle | null = null;
  let milvus: MilvusHandle | null = null;
  let dataDir = '';
  let env: Record<string, string> = {};
  const roles: Role[] = [];
  let api: Role;
  let collection = '';

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

  const milvusCount = async (): Promise<number> => {
    const index = createMilvusIndex({ url: milvus!.url, collection, dimensions: 384, log: silentLogger });
    try {
      return await index.count();
    } finally {
      await index.close();
    }
  };
  const upload = async (name: string) => {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(join(documents, name))]), name);
    const response = await fetch(`${api.url}/api/v1/upload`, {
      method: 'POST',
      body: form,
      signal: AbortSignal.timeout(60_000),
    });
    expect(response.status).to.equal(200);
    // Read-your-writes held: the API did not give up waiting for the vectors.
    expect(response.headers.get('x-read-your-writes')).to.equal(null);
    return (await response.json()) as { doc_id: string; chunks_added: number; success: boolean };
  };
  const searchTop = async (query: string): Promise<string | undefined> => {
    const response = await fetch(`${api.url}/api/v1/search`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ query }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json()) as { results: Array<{ doc_id: string }> };
    return body.results[0]?.doc_id;
  };
  const leaseOwner = async (): Promise<string | null> => {
    const store = createMongoReadStore({ url: mongo!.url, database: env['MONGODB_DATABASE']! });
    try {
      const lease = await store.readLease(`vectors:${collection}`);
      return lease && lease.expiresAt > Date.now() ? lease.owner : null;
    } finally {
      await store.close();
    }
  };
  const projectorHolding = (owner: string | null): Role | undefined =>
    roles.find((role) => role.name.startsWith('projector') && owner?.includes(`:${role.child.pid}:`));

  before(async function () {
    [nats, mongo, milvus] = await Promise.all([startNatsServer(), startMongo(), startMilvus()]);
    if (!nats || !mongo || !milvus) {
      console.log('      skipped: this test needs a nats-server, a MongoDB-wire server and a Milvus server');
      this.skip();
    }
    dataDir = mkdtempSync(join(tmpdir(), 'archivist-milvus-roles-'));
    env = {
      EVENT_STORE: 'file',
      DATA_DIR: dataDir,
      EVENT_STORE_POLL_MS: '100',
      BUS: 'nats',
      NATS_URL: nats!.url,
      READ_STORE: 'mongodb',
      MONGODB_URL: mongo!.url,
      MONGODB_DATABASE: `milvus_roles_${process.pid}_${Date.now()}`,
      VECTOR_STORE: 'milvus',
      MILVUS_URL: milvus!.url,
      PORT: '0',
      LOG_LEVEL: 'info',
      PARSE_WORKERS: '1',
      // Longer than a lease (15 s): when a projector dies, the read-model projections it led wait
      // for its lease to expire before the other takes them over.
      READ_YOUR_WRITES_TIMEOUT_MS: '30000',
    };
    // The API first: it only searches, so nothing has written the collection yet. A collection of
    // this name left by another run belongs to another event log: dropped before a projector starts.
    api = await start('api', 'api');
    const stats = (await (await fetch(`${api.url}/api/v1/health/stats`)).json()) as Record<string, string>;
    collection = stats['collection_name']!;
    await createMilvusIndex({ url: milvus!.url, collection, dimensions: 384, log: silentLogger }).drop();
    await Promise.all([
      start('projector-a', 'projector'),
      start('projector-b', 'projector'),
      start('worker', 'worker'),
    ]);
  });

  after(async () => {
    for (const role of roles.splice(0)) role.child.kill('SIGKILL');
    if (milvus && collection) {
      await createMilvusIndex({ url: milvus.url, collection, dimensions: 384, log: silentLogger })
        .drop()
        .catch(() => undefined);
    }
    await Promise.all([nats?.dispose(), mongo?.dispose(), milvus?.dispose()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  afterEach(function () {
    if (this.currentTest?.state !== 'failed') return;
    for (const role of roles)
      console.log(
        `      --- last log lines of ${role.name} ---\n${role.log.map((line) => `      ${line}`).join('\n')}`,
      );
  });

  it('makes an upload through the API searchable at once, its vectors written to Milvus by a projector process', async () => {
    const result = await upload('readme.md');
    expect(result.success).to.equal(true);
    expect(result.chunks_added).to.be.greaterThan(0);
    expect(await milvusCount()).to.equal(result.chunks_added);
    expect(await searchTop('river bank erosion volunteers')).to.equal(result.doc_id);
  });

  it('lets one projector write at a time, and the other take over when it dies', async () => {
    const holder = projectorHolding(await leaseOwner());
    expect(holder, 'a projector process holds the vector lease').to.not.equal(undefined);
    holder!.child.kill('SIGKILL');
    const successor = await eventually(
      async () => {
        const next = projectorHolding(await leaseOwner());
        return next && next !== holder ? next : undefined;
      },
      40_000,
      'the other projector to take the vector lease',
    );
    expect(successor.name).to.not.equal(holder!.name);

    const before = await milvusCount();
    const result = await upload('report.txt');
    expect(await milvusCount()).to.equal(before + result.chunks_added);
    expect(await searchTop('water quality measurements river stations')).to.equal(result.doc_id);
  });
});
