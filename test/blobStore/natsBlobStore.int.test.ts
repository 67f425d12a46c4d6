import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { BlobStore } from '../../src/blobStore/blobStore.js';
import { BlobStoreUnavailableError } from '../../src/blobStore/blobStore.js';
import { createNatsBlobStore, type NatsBlobStoreOptions } from '../../src/blobStore/natsBlobStore.js';
import { openBlobStore } from '../../src/blobStore/openBlobStore.js';
import { silentLogger } from '../../src/log.js';
import { settleWithin } from '../../src/settleWithin.js';
import { blobStoreContract } from '../contracts/blobStore.contract.js';
import { eventually } from '../support/eventually.js';
import { expectRejection } from '../support/expectRejection.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { startTcpProxy } from '../support/tcpProxy.js';

let counter = 0;
/** A bucket per store, so the tests also work against a server that others use (NATS_URL). */
const newBucket = (what: string): string => `archivist-test-${what}-${process.pid}-${(counter += 1)}`;

/** The stream's message count and the bucket's storage, as the server reports them. */
async function bucketState(url: string, bucket: string): Promise<{ messages: number; storage: string }> {
  const nc = await connect({ servers: url });
  try {
    const info = await (await jetstreamManager(nc)).streams.info(`OBJ_${bucket}`);
    return { messages: info.state.messages, storage: info.config.storage };
  } finally {
    await nc.close();
  }
}

async function destroyBuckets(url: string, buckets: string[]): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    for (const bucket of buckets) await jsm.streams.delete(`OBJ_${bucket}`).catch(() => false);
  } finally {
    await nc.close();
  }
}

/** Waits until the store serves again after an outage (what a caller's retry does). */
const backAgain = (store: BlobStore): Promise<true> =>
  eventually(async () => ((await store.health()).healthy ? true : undefined), 20_000, 'blob store back');

describe('NATS blob store against a real nats-server', function () {
  this.timeout(120_000);
  let server: NatsServerHandle | null = null;
  const open: BlobStore[] = [];
  const buckets: { url: string; bucket: string }[] = [];
  const newStore = (
    options: Partial<NatsBlobStoreOptions> & { what: string },
    on: NatsServerHandle | null = server,
  ): { store: BlobStore; bucket: string } => {
    const bucket = newBucket(options.what);
    buckets.push({ url: on!.url, bucket });
    const store = createNatsBlobStore({ url: on!.url, bucket, timeoutMs: options.timeoutMs ?? 5_000 });
    open.push(store);
    return { store, bucket };
  };

  before(async function () {
    server = await startNatsServer(); // prints why when it returns null
    if (!server) this.skip();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((store) => store.close()));
  });
  after(async () => {
    // Only a shared server keeps what the tests stored; our own servers are removed whole.
    if (server && !server.controllable) {
      await destroyBuckets(
        server.url,
        buckets.filter((entry) => entry.url === server!.url).map((entry) => entry.bucket),
      );
    }
    await server?.dispose();
  });

  blobStoreContract('nats', async () => {
    const { store } = newStore({ what: 'contract' });
    return { store, dispose: () => store.close() };
  });

  it('creates its bucket with file storage, and deleting a blob leaves nothing of it on the server', async () => {
    const { store, bucket } = newStore({ what: 'space' });
    const name = await store.put(randomBytes(3 * 1024 * 1024));
    const stored = await bucketState(server!.url, bucket);
    expect(stored.storage).to.equal('file');
    expect(stored.messages, 'chunks and metadata').to.be.above(2);
    await store.delete(name);
    expect((await bucketState(server!.url, bucket)).messages).to.equal(0);
  });

  // Outage tests need a server they may stop: the shared one when it is ours, else one of their own.
  let own: NatsServerHandle | null = null;
  async function requireControl(context: Mocha.Context): Promise<NatsServerHandle> {
    if (server?.controllable) return server;
    own ??= await startNatsServer({ own: true });
    if (own?.controllable) return own;
    console.log(
      'skipped: the server given by NATS_URL cannot be stopped by tests, and there is no nats-server binary',
    );
    return context.skip();
  }
  after(async () => {
    await own?.dispose();
  });

  /** `promise`, or a failure once it has been pending `ms`: a hang, not a slow answer. */
  const bounded = <T>(promise: Promise<T>, ms: number): Promise<T> =>
    settleWithin(promise, ms, () => new Error(`still pending after ${ms} ms`));

  it('is what openBlobStore gives for BLOB_STORE=nats', async function () {
    // Its default bucket may be a deployment's on a shared server: only a server of our own.
    const target = await requireControl(this);
    const store = await openBlobStore(
      { blobStore: 'nats', natsUrl: target.url, dataDir: '/nonexistent', engineTimeoutMs: 5_000 },
      silentLogger,
    );
    open.push(store);
    const name = await store.put(new TextEncoder().encode('over NATS'));
    expect((await store.get(name)).toString('utf8')).to.equal('over NATS');
    await store.delete(name);
  });

  it('refuses calls as unavailable while the server is down, and serves again, blobs intact, when it is back', async function () {
    const target = await requireControl(this);
    const timeoutMs = 1_000;
    const { store } = newStore({ what: 'outage', timeoutMs }, target);
    const before = randomBytes(3 * 1024 * 1024);
    const kept = await store.put(before);
    await target.stop();
    try {
      // Bounded: each call settles (rejects) long before the test's own timeout would catch a hang.
      const bound = 10 * timeoutMs;
      await expectRejection(bounded(store.put(randomBytes(1024)), bound), BlobStoreUnavailableError);
      const refused = await expectRejection(bounded(store.get(kept), bound), BlobStoreUnavailableError);
      expect(refused.message).to.include(target.url);
      await expectRejection(bounded(store.delete(kept), bound), BlobStoreUnavailableError);
      const health = await bounded(store.health(), bound);
      expect(health.healthy).to.equal(false);
      expect(health.reason).to.include(target.url);
    } finally {
      await target.restart();
    }
    await backAgain(store);
    expect((await store.get(kept)).equals(before), 'blob stored before the outage').to.equal(true);
    const after = randomBytes(2 * 1024 * 1024);
    const name = await store.put(after);
    expect((await store.get(name)).equals(after)).to.equal(true);
  });

  it('refuses calls as unavailable within the bound while the server hangs, and serves again after', async () => {
    const upstream = new URL(server!.url.split(',')[0]!);
    const proxy = await startTcpProxy({ host: upstream.hostname, port: Number(upstream.port || 4222) });
    try {
      const timeoutMs = 1_000;
      const bucket = newBucket('hang');
      buckets.push({ url: server!.url, bucket });
      const store = createNatsBlobStore({ url: `nats://${proxy.address}`, bucket, timeoutMs });
      open.push(store);
      const bytes = randomBytes(5 * 1024 * 1024);
      const kept = await store.put(bytes);
      // The connection stays open and nothing comes back: only the adapter's own bound can end a call.
      proxy.setMode('silent');
      const bound = 10 * timeoutMs;
      await expectRejection(bounded(store.get(kept), bound), BlobStoreUnavailableError);
      await expectRejection(bounded(store.put(randomBytes(1024)), bound), BlobStoreUnavailableError);
      expect((await bounded(store.health(), bound)).healthy).to.equal(false);
      // Bytes swallowed mid-protocol leave the connection unusable: the client notices (missed pings)
      // and connects again through the proxy.
      proxy.setMode('forward');
      await eventually(async () => ((await store.health()).healthy ? true : undefined), 60_000, 'recovery');
      expect((await store.get(kept)).equals(bytes)).to.equal(true);
    } finally {
      await proxy.close();
    }
  });

  it('a put cut by an outage either stores the whole blob or fails as unavailable', async function () {
    const target = await requireControl(this);
    const { store } = newStore({ what: 'cut', timeoutMs: 1_000 }, target);
    await backAgain(store);
    const bytes = randomBytes(30 * 1024 * 1024);
    const putting = store.put(bytes).then(
      (name) => ({ name }),
      (error: unknown) => ({ error }),
    );
    await target.restart();
    const outcome = await bounded(putting, 20_000);
    await backAgain(store);
    if ('name' in outcome) {
      expect((await store.get(outcome.name)).equals(bytes)).to.equal(true);
    } else {
      expect(outcome.error).to.be.instanceOf(BlobStoreUnavailableError);
    }
  });

  it('starts while the server is down and serves once it is up', async function () {
    const target = await requireControl(this);
    await target.stop();
    let store: BlobStore;
    try {
      store = newStore({ what: 'late', timeoutMs: 1_000 }, target).store;
      const health = await store.health();
      expect(health.healthy).to.equal(false);
      expect(health.reason).to.include('cannot reach NATS');
      await expectRejection(store.put(new Uint8Array([1])), BlobStoreUnavailableError);
    } finally {
      await target.restart();
    }
    await backAgain(store);
    const name = await store.put(new Uint8Array([1, 2, 3]));
    expect([...(await store.get(name))]).to.deep.equal([1, 2, 3]);
  });
});
