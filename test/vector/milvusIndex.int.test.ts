import { expect } from 'chai';
import { silentLogger } from '../../src/log.js';
import { createMilvusIndex } from '../../src/vector/milvusIndex.js';
import type { VectorIndex } from '../../src/vector/vectorIndex.js';
import { VectorIndexError } from '../../src/vector/vectorIndex.js';
import { unitVector, vectorIndexContract } from '../contracts/vectorIndex.contract.js';
import { eventually } from '../support/eventually.js';
import { expectRejection } from '../support/expectRejection.js';
import { startMilvus } from '../support/milvusLite.js';

// Started when the file loads so that the suite can say which server runs it; a failure to start
// is reported by the suite (a throw here would abort the whole mocha run).
const started = await startMilvus().then(
  (handle) => ({ handle, error: null }),
  (error: unknown) => ({ handle: null, error }),
);
const milvus = started.handle;
const prefix = `t${process.pid}`;

const open = (url: string, collection: string, dimensions: number, timeoutMs?: number): VectorIndex =>
  createMilvusIndex({
    url,
    collection,
    dimensions,
    log: silentLogger,
    ...(timeoutMs ? { timeoutMs } : {}),
  });

describe('Milvus vector index', function () {
  this.timeout(60_000);
  before(function () {
    if (started.error) throw started.error;
    if (!milvus) this.skip();
  });
  after(async () => milvus?.dispose());

  vectorIndexContract(`milvus (${milvus?.managed ? 'Milvus Lite' : 'MILVUS_URL'})`, () => ({
    open: async (collection, dimensions) => open(milvus!.url, `${prefix}_${collection}`, dimensions),
    async reopen(index, dimensions = index.dimensions) {
      await index.close();
      return open(milvus!.url, index.collection, dimensions);
    },
  }));

  it('upserts batches larger than one request, and counts them all', async () => {
    const dimensions = 384;
    const index = open(milvus!.url, `${prefix}_large`, dimensions);
    const records = Array.from({ length: 2_500 }, (_, i) => ({
      id: `d${i % 50}:${i}`,
      docId: `d${i % 50}`,
      vector: unitVector(i + 1, dimensions),
    }));
    await index.upsert(records);
    expect(await index.count()).to.equal(2_500);
    const [hit] = await index.search(unitVector(2_101, dimensions), { k: 1 });
    expect(hit).to.include({ id: 'd0:2100', docId: 'd0' });
    await index.deleteDocument('d0');
    expect(await index.count()).to.equal(2_450);
    await index.drop();
  });

  it('refuses to commit over a checkpoint another writer moved, until it has read it again', async () => {
    const name = `${prefix}_two_writers`;
    const first = open(milvus!.url, name, 4);
    const second = open(milvus!.url, name, 4);
    expect(await first.checkpoint()).to.equal(null);
    await second.commit('5');
    const error = await expectRejection(first.commit('3'), VectorIndexError);
    expect(error.code).to.equal('corrupt');
    expect(error.message).to.match(/checkpoint of .* is 5 where this index left null/);
    expect(await first.checkpoint()).to.equal('5');
    await first.commit('6');
    await second.close();
    await first.drop();
  });

  it('notices that its collection was dropped and created again, and does not commit past the loss', async () => {
    const name = `${prefix}_recreated`;
    const writer = open(milvus!.url, name, 4);
    await writer.upsert([{ id: 'a:0', docId: 'a', vector: unitVector(1, 4) }]);
    await writer.commit('1');
    await open(milvus!.url, name, 4).drop();
    const other = open(milvus!.url, name, 4);
    expect(await other.checkpoint()).to.equal(null);
    await other.close();
    // The writer's next writes land in the new, empty collection: its commit must not claim 1 and more.
    await writer.upsert([{ id: 'b:0', docId: 'b', vector: unitVector(2, 4) }]);
    const error = await expectRejection(writer.commit('2'), VectorIndexError);
    expect(error.code).to.equal('corrupt');
    expect(await writer.checkpoint()).to.equal(null);
    await writer.drop();
  });

  it('opens a new collection from several processes at once: the ones that lose the race to create it use it', async () => {
    const name = `${prefix}_raced`;
    const indexes = Array.from({ length: 4 }, () => open(milvus!.url, name, 4));
    const counts = await Promise.allSettled(indexes.map((index) => index.count()));
    expect(
      counts.map((count) => (count.status === 'fulfilled' ? count.value : String(count.reason))),
    ).to.deep.equal([0, 0, 0, 0]);
    await indexes[0]!.upsert([{ id: 'a:1', docId: 'a', vector: unitVector(1, 4) }]);
    expect(await indexes[3]!.count()).to.equal(1);
    await indexes[0]!.drop();
    await Promise.all(indexes.map((index) => index.close()));
  });

  it('refuses a collection of the same name that is not one of ours', async () => {
    const name = `${prefix}_foreign`;
    const { MilvusClient } = await import('@zilliz/milvus2-sdk-node');
    const client = new MilvusClient({ address: new URL(milvus!.url).host, logLevel: 'error' });
    await client.createCollection({
      collection_name: name,
      fields: [
        { name: 'pk', data_type: 'Int64', is_primary_key: true },
        { name: 'embedding', data_type: 'FloatVector', dim: 4 },
      ],
    });
    const index = open(milvus!.url, name, 4);
    const error = await expectRejection(index.count(), VectorIndexError);
    expect(error.code).to.equal('corrupt');
    expect(error.message).to.match(/another schema/);
    await index.close();
    await client.dropCollection({ collection_name: name });
    await client.closeConnection();
  });
});

describe('Milvus vector index through a Milvus outage', function () {
  this.timeout(120_000);
  let own: Awaited<ReturnType<typeof startMilvus>> = null;
  const record = (id: string, seed: number) => ({
    id,
    docId: id.split(':')[0]!,
    vector: unitVector(seed, 8),
  });
  /** Fails with the port's error, and soon: a call must not wait for the server to return. */
  const unavailable = async (call: Promise<unknown>, withinMs: number) => {
    const startedAt = performance.now();
    const error = await expectRejection(call, VectorIndexError);
    expect(error.code).to.equal('unavailable');
    expect(performance.now() - startedAt).to.be.below(withinMs);
    return error;
  };

  before(async function () {
    own = await startMilvus({ own: true });
    if (!own?.managed) {
      console.log(
        '      skipped: the outage tests need a Milvus Lite of their own (pip install milvus-lite==2.5.1)',
      );
      this.skip();
    }
  });
  after(async () => {
    if (own?.managed) await own.dispose();
  });

  it('keeps every acknowledged write across a kill -9 of the server, and fails fast while it is down', async () => {
    const index = open(own!.url, 'outage', 8);
    await index.upsert([record('a:0', 1), record('b:0', 2)]);
    await index.commit('1');
    // Acknowledged but not committed, nor flushed: kept all the same (the runner would replay them).
    await index.upsert([record('c:0', 3)]);
    await index.delete(['b:0']);
    await own!.stop('SIGKILL');

    await unavailable(index.search(unitVector(1, 8), { k: 1 }), 5_000);
    await unavailable(index.upsert([record('d:0', 4)]), 5_000);
    await unavailable(index.commit('2'), 5_000);
    expect(await index.health()).to.deep.include({ healthy: false });

    await own!.restart();
    // gRPC reconnects after a backoff (capped at 5 s); the collections come back unloaded and the
    // index loads them again on its next call.
    const checkpoint = await eventually(
      () => index.checkpoint().catch(() => undefined),
      15_000,
      'the index to answer after the restart',
    );
    expect(checkpoint).to.equal('1');
    expect(await index.count()).to.equal(2);
    const hits = await index.search(unitVector(3, 8), { k: 5 });
    expect(hits.map((hit) => hit.id).sort()).to.deep.equal(['a:0', 'c:0']);
    expect((await index.health()).healthy).to.equal(true);
    await index.drop();
  });

  it('starts while Milvus is down and works once it is up', async () => {
    await own!.stop();
    const index = open(own!.url, 'late', 8);
    await unavailable(index.count(), 5_000);
    await unavailable(index.count(), 5_000);
    await own!.restart();
    await index.upsert([record('a:0', 1)]);
    expect(await index.count()).to.equal(1);
    await index.drop();
  });

  it('gives up on a server that stops answering after its deadline, and recovers when it answers again', async () => {
    const index = open(own!.url, 'frozen', 8, 1_000);
    await index.upsert([record('a:0', 1)]);
    own!.pause();
    try {
      const error = await unavailable(index.search(unitVector(1, 8), { k: 1 }), 4_000);
      expect(error.message).to.match(/deadline|timeout|time/i);
    } finally {
      own!.resume();
    }
    expect((await index.search(unitVector(1, 8), { k: 1 }))[0]).to.include({ id: 'a:0' });
    await index.drop();
  });
});
