import { Writable } from 'node:stream';
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { normalizeForIndex } from '../../src/text/normalize.js';
import { createMongoReadStore, type MongoReadStoreOptions } from '../../src/readStore/mongoReadStore.js';
import type { Doc, ReadStore } from '../../src/readStore/readStore.js';
import { ReadStoreUnavailableError, UnsupportedQueryError } from '../../src/readStore/readStore.js';
import { defineAggregate } from '../../src/commands/aggregate.js';
import { createCommandHandler } from '../../src/commands/commandHandler.js';
import { createReadStoreSnapshots } from '../../src/commands/snapshots.js';
import type { Command, Decider, Event } from '../../src/domain/shared/index.js';
import { defineEvents } from '../../src/domain/shared/index.js';
import { createMemoryEventStore } from '../../src/eventStore/memoryEventStore.js';
import { createReadStoreEmbeddingCache } from '../../src/knowledge/embeddingCache.js';
import { createProjectionRegistry } from '../../src/projections/registry.js';
import { createSessionStore } from '../../src/users/sessions.js';
import { createReadStoreActiveCollectionStore } from '../../src/vector/activeCollection.js';
import { readStoreContract } from '../contracts/readStore.contract.js';
import { sleep } from '../support/eventually.js';
import { expectRejection } from '../support/expectRejection.js';
import { startMongo, type MongoHandle } from '../support/ferretDb.js';
import { startTcpProxy } from '../support/tcpProxy.js';

// Started when the file loads so that the suite names can say which server runs them; a failure
// to start is reported by the suite (a throw here would abort the whole mocha run).
const started = await startMongo().then(
  (handle) => ({ handle, error: null }),
  (error: unknown) => ({ handle: null, error }),
);
const mongo = started.handle;
const database = `archivist_test_${process.pid}`;

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) throw new Error(`condition not met in ${timeoutMs} ms`);
    await sleep(50);
  }
  return performance.now() - started;
}

/** A logger whose records the test can read (to see which search method ran). */
function capturingLogger() {
  const records: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      records.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'debug' }, stream), records };
}

describe('MongoDB read store', function () {
  this.timeout(60_000);
  const stores: ReadStore[] = [];
  const open = (options: Partial<MongoReadStoreOptions> = {}): ReadStore => {
    const store = createMongoReadStore({ url: mongo!.url, database, ...options });
    stores.push(store);
    return store;
  };

  before(function () {
    if (started.error) throw started.error;
    if (!mongo) this.skip();
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });
  after(async () => {
    if (!mongo) return;
    const client = new MongoClient(mongo.url, { serverSelectionTimeoutMS: 5_000 });
    await client
      .db(database)
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
    await mongo.dispose();
  });

  readStoreContract(`mongodb (${mongo?.kind ?? 'no server'})`, async () => {
    // Configured as the application configures it (the contract checks Arabic folding through it).
    const store = createMongoReadStore({ url: mongo!.url, database, normalizeText: normalizeForIndex });
    return { store, dispose: () => store.close() };
  });
  // On a server with text indexes, the terms method must pass the same contract.
  if (mongo?.kind === 'mongodb') {
    readStoreContract('mongodb (terms method forced)', async () => {
      const store = createMongoReadStore({
        url: mongo.url,
        database,
        textIndex: false,
        normalizeText: normalizeForIndex,
      });
      return { store, dispose: () => store.close() };
    });
  }

  describe('full-text search', () => {
    const notes = [
      { id: 'n1', title: 'Deployment guide', body: 'How to deploy the archive service on two machines.' },
      { id: 'n2', title: 'Archive retention', body: 'Deleted conversations are purged after thirty days.' },
    ];

    it('finds out by trying whether the server has text indexes, and uses them when it does', async () => {
      const { log, records } = capturingLogger();
      const store = open({ log });
      await store.ensureCollection({ name: 'methods', textFields: ['title', 'body'] });
      await store.write(notes.map((doc) => ({ op: 'upsert' as const, collection: 'methods', doc })));
      expect((await store.search('methods', 'archive deploy')).map((hit) => hit.doc.id)).to.deep.equal([
        'n1',
      ]);
      expect((await store.search('methods', 'purg')).map((hit) => hit.doc.id)).to.deep.equal(['n2']);
      const methods = records
        .filter((record) => record['msg'] === 'search')
        .map((record) => record['method']);
      const noTextIndexes = records.some((record) =>
        String(record['msg']).startsWith('no MongoDB text indexes'),
      );
      if (mongo!.kind === 'ferretdb') {
        expect(noTextIndexes).to.equal(true);
        expect(methods).to.deep.equal(['terms', 'terms']);
      } else {
        // A prefix-only query cannot use a text index (no prefix matching there).
        expect(noTextIndexes).to.equal(false);
        expect(methods).to.deep.equal(['textIndex', 'terms']);
      }
      await store.dropCollection('methods');
    });

    it('ranks by how often the terms occur, counting every word the last term is a prefix of', async () => {
      const store = open();
      await store.ensureCollection({ name: 'ranking', textFields: ['text'] });
      await store.write(
        [
          { id: 'once', text: 'report summary' },
          { id: 'twice', text: 'reporting reports' },
          { id: 'thrice', text: 'report report report summary' },
          { id: 'none', text: 'unrelated words' },
        ].map((doc) => ({ op: 'upsert' as const, collection: 'ranking', doc })),
      );
      const hits = await store.search('ranking', 'report');
      const ids = hits.map((hit) => hit.doc.id);
      expect(ids).to.have.members(['once', 'twice', 'thrice']);
      expect(ids.indexOf('twice')).to.be.below(ids.indexOf('once'));
      expect(hits.map((hit) => hit.score)).to.deep.equal(
        [...hits.map((hit) => hit.score)].sort((a, b) => b - a),
      );
      await store.dropCollection('ranking');
    });

    it('pages through results with skip and limit in one consistent order', async () => {
      const store = open();
      await store.ensureCollection({ name: 'paging', indexes: ['group'], textFields: ['text'] });
      await store.write(
        Array.from({ length: 30 }, (_, i) => ({
          op: 'upsert' as const,
          collection: 'paging',
          doc: { id: `d${i}`, group: i % 2, text: `alpha ${'beta '.repeat(i % 7)} gamma` },
        })),
      );
      const all = (await store.search('paging', 'alpha gam', { limit: 30 })).map((hit) => hit.doc.id);
      expect(all).to.have.length(30);
      const pages: string[] = [];
      for (let skip = 0; skip < 30; skip += 10)
        pages.push(
          ...(await store.search('paging', 'alpha gam', { skip, limit: 10 })).map((hit) => hit.doc.id),
        );
      expect(pages).to.deep.equal(all);
      const even = await store.search('paging', 'alpha', { filter: { group: 0 }, limit: 100 });
      expect(even).to.have.length(15);
      await store.dropCollection('paging');
    });

    it('searches through the normaliser hook, on indexed text and queries alike', async () => {
      const unifyAlef = (text: string): string => text.replace(/[أإآ]/g, 'ا');
      const store = open({ normalizeText: unifyAlef });
      await store.ensureCollection({ name: 'arabic', textFields: ['text'] });
      await store.write([
        { op: 'upsert', collection: 'arabic', doc: { id: 'n1', text: 'أحمد يكتب تقريرا' } },
      ]);
      expect((await store.search('arabic', 'احمد')).map((hit) => hit.doc.id)).to.deep.equal(['n1']);
      expect((await store.search('arabic', 'إحمد يكت')).map((hit) => hit.doc.id)).to.deep.equal(['n1']);
      expect((await store.get('arabic', 'n1'))?.['text']).to.equal('أحمد يكتب تقريرا');
      await store.dropCollection('arabic');
    });

    it('is declared by several processes at once: each start succeeds, and they agree on the collection', async () => {
      // As when two projector processes start together: each store instance stands for one process.
      const stores = Array.from({ length: 6 }, () => open());
      const outcomes = await Promise.allSettled(
        stores.map((store) =>
          store.ensureCollection({ name: 'raced', indexes: ['n'], textFields: ['text'] }),
        ),
      );
      expect(
        outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => String(outcome.reason)),
      ).to.deep.equal([]);
      await stores[0]!.write([
        { op: 'upsert', collection: 'raced', doc: { id: 'r1', n: 1, text: 'raced start' } },
      ]);
      expect((await stores[5]!.search('raced', 'start')).map((hit) => hit.doc.id)).to.deep.equal(['r1']);
      await stores[0]!.dropCollection('raced');
    });

    it('is known to another store instance that did not declare the collection', async () => {
      const writer = open();
      await writer.ensureCollection({ name: 'shared_text', textFields: ['text'] });
      const reader = open();
      await writer.write([
        { op: 'upsert', collection: 'shared_text', doc: { id: 'x', text: 'hello world' } },
      ]);
      expect((await reader.search('shared_text', 'world')).map((hit) => hit.doc.id)).to.deep.equal(['x']);
      await reader.write([{ op: 'patch', collection: 'shared_text', id: 'x', set: { text: 'goodbye' } }]);
      expect(await writer.search('shared_text', 'world')).to.deep.equal([]);
      await writer.dropCollection('shared_text');
    });
  });

  describe('documents', () => {
    it('stores keys MongoDB refuses or reserves, and nested arrays, and returns them unchanged', async () => {
      const store = open();
      await store.ensureCollection({ name: 'awkward', textFields: ['text'] });
      const doc = {
        id: 'k1',
        text: 'searchable words',
        'a.b': 1,
        $x: { 'c.d': [[1, 2], [[3]]], '%a': [1], '%25': 'percent', 'nul\u0000key': true },
        _id: 'mine',
        _search: 'mine too',
        table: [
          ['h1', 'h2'],
          ['v1', 'v2'],
        ],
        when: new Date(0),
        gone: undefined,
      };
      const expected = JSON.parse(JSON.stringify(doc)) as Doc;
      await store.write([{ op: 'upsert', collection: 'awkward', doc }]);
      expect(await store.get('awkward', 'k1')).to.deep.equal(expected);
      expect(await store.find('awkward', { filter: { _id: 'mine' } })).to.deep.equal([expected]);
      expect((await store.search('awkward', 'searchable')).map((hit) => hit.doc)).to.deep.equal([expected]);
      await store.write([
        {
          op: 'patch',
          collection: 'awkward',
          id: 'k1',
          set: { 'x.y': [[1]], _search: undefined, $x: undefined },
        },
      ]);
      const { _search: _removedSearch, $x: _removedX, ...rest } = expected;
      expect(await store.get('awkward', 'k1')).to.deep.equal({ ...rest, 'x.y': [[1]] });
      expect((await store.search('awkward', 'words')).map((hit) => hit.doc.id)).to.deep.equal(['k1']);
      await store.dropCollection('awkward');
    });

    it('upserts new and existing documents in one batch, the last upsert of an id winning', async () => {
      const store = open();
      await store.write([{ op: 'upsert', collection: 'mixed', doc: { id: 'old', v: 0 } }]);
      await store.write([
        { op: 'upsert', collection: 'mixed', doc: { id: 'new', v: 1 } },
        { op: 'upsert', collection: 'mixed', doc: { id: 'old', v: 1 } },
        { op: 'upsert', collection: 'mixed', doc: { id: 'new', v: 2 } },
        { op: 'patch', collection: 'mixed', id: 'new', set: { w: 1 } },
        { op: 'upsert', collection: 'mixed', doc: { id: 'old', v: 2 } },
        { op: 'upsert', collection: 'mixed', doc: { id: 'old', v: 3 } },
      ]);
      expect(await store.find('mixed', { sort: [['id', 1]] })).to.deep.equal([
        { id: 'new', v: 2, w: 1 },
        { id: 'old', v: 3 },
      ]);
      await store.dropCollection('mixed');
    });

    it('checks a whole batch before applying any of it', async () => {
      const store = open();
      await expectRejection(
        store.write([
          { op: 'upsert', collection: 'batch', doc: { id: 'a' } },
          { op: 'upsert', collection: 'batch', doc: { id: '' } },
        ]),
        UnsupportedQueryError,
      );
      expect(await store.get('batch', 'a')).to.equal(null);
    });

    it('applies a large batch of changes to existing documents (FerretDB hangs on 100 in one command)', async () => {
      const store = open();
      const ids = Array.from({ length: 300 }, (_, i) => `d${i}`);
      await store.write(ids.map((id) => ({ op: 'upsert' as const, collection: 'large', doc: { id, v: 0 } })));
      await store.write(ids.map((id) => ({ op: 'patch' as const, collection: 'large', id, set: { v: 1 } })));
      expect(await store.count('large', { v: 1 })).to.equal(300);
      await store.dropCollection('large');
    });

    it('returns no rows for limit 0 and all rows for a negative limit, as SQL does', async () => {
      const store = open();
      await store.write(
        [1, 2, 3].map((n) => ({ op: 'upsert' as const, collection: 'limits', doc: { id: `d${n}` } })),
      );
      expect(await store.find('limits', { limit: 0 })).to.deep.equal([]);
      expect(await store.find('limits', { limit: -1 })).to.have.length(3);
      await store.dropCollection('limits');
    });
  });

  describe('leases across store instances', () => {
    it('grants a lease to exactly one of two stores, also when they race for it', async () => {
      const [a, b] = [open(), open()];
      const lease = `race-${Date.now()}`;
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).acquireLease(lease, `owner${i}`, 500)),
      );
      expect(outcomes.filter(Boolean)).to.have.length(1);
      const winner = outcomes.find(Boolean)!.owner;
      const other = winner === 'owner0' ? 'owner1' : 'owner0';
      expect(await a.acquireLease(lease, winner, 500)).to.include({ owner: winner, epoch: 1 });
      expect(await b.acquireLease(lease, other, 500)).to.equal(null);
      await sleep(600);
      expect(await b.acquireLease(lease, other, 500)).to.include({ owner: other, epoch: 2 });
      await a.releaseLease(lease, winner); // not the holder: no effect
      expect(await a.acquireLease(lease, winner, 500)).to.equal(null);
      await b.releaseLease(lease, other);
      expect(await a.acquireLease(lease, winner, 500)).to.include({ owner: winner, epoch: 3 });
    });
  });

  describe('outage', () => {
    // A server the tests may stop: the shared one when it is ours, else a FerretDB of their own.
    let target: MongoHandle | null = null;
    let down = false;
    const stop = async () => {
      down = true;
      await target!.stop();
    };
    const restart = async () => {
      await target!.restart();
      down = false;
    };
    const openOnTarget = (options: Partial<MongoReadStoreOptions> = {}): ReadStore =>
      open({ url: target!.url, ...options });
    before(async function () {
      target = mongo?.managed ? mongo : await startMongo({ own: true });
      if (!target?.managed) {
        console.log(
          'skipped: the MONGODB_URL server cannot be stopped by the tests, and there is no ferretdb binary',
        );
        this.skip();
      }
    });
    after(async () => {
      if (target && target !== mongo) await target.dispose();
    });
    afterEach(async () => {
      // Whatever happened in the test, the server runs again for the next one.
      if (down) await restart();
    });

    it('fails fast while the server is down, says why, and recovers without a new store object', async () => {
      const store = openOnTarget();
      await store.ensureCollection({ name: 'outage', indexes: ['n'], textFields: ['text'] });
      const doc = { id: 'a', n: 1, text: 'before the outage' };
      await store.write([{ op: 'upsert', collection: 'outage', doc }]);
      await stop();
      await expectRejection(store.get('outage', 'a'), ReadStoreUnavailableError);
      const started = performance.now();
      await Promise.all(
        [
          store.get('outage', 'a'),
          store.find('outage', { filter: { n: 1 } }),
          store.count('outage'),
          store.countBy('outage', 'n'),
          store.search('outage', 'outage'),
          store.write([{ op: 'upsert', collection: 'outage', doc: { id: 'b' } }]),
          store.acquireLease('outage', 'me', 1_000),
        ].map((call) => expectRejection(call, ReadStoreUnavailableError)),
      );
      const failMs = performance.now() - started;
      expect(failMs).to.be.below(50);
      const health = await store.health();
      expect(health.healthy).to.equal(false);
      expect(health.reason).to.match(/^MongoDB at 127\.0\.0\.1:\d+ unreachable: .+/);

      await restart();
      const recoveryMs = await waitFor(async () => (await store.health()).healthy, 10_000);
      expect(await store.get('outage', 'a')).to.deep.equal(doc);
      await store.write([{ op: 'upsert', collection: 'outage', doc: { id: 'b', text: 'after the outage' } }]);
      expect((await store.search('outage', 'outage')).map((hit) => hit.doc.id)).to.have.members(['a', 'b']);
      console.log(
        `      (7 calls failed in ${failMs.toFixed(1)} ms; healthy ${recoveryMs.toFixed(0)} ms after restart)`,
      );
      await store.dropCollection('outage');
    });

    it('recovers once a server that went silent answers again, and closes although the server then vanished', async () => {
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(target!.url).port) });
      try {
        const store = open({ url: `mongodb://${proxy.address}/` });
        await store.write([{ op: 'upsert', collection: 'silent', doc: { id: 'a', n: 1 } }]);
        // Its connections are cut, then new ones are taken and never answered.
        proxy.setMode('refuse');
        await expectRejection(store.get('silent', 'a'), ReadStoreUnavailableError);
        proxy.setMode('silent');
        await sleep(3_000);
        expect((await store.health()).healthy).to.equal(false);
        proxy.setMode('forward');
        const recoveryMs = await waitFor(async () => (await store.health()).healthy, 15_000);
        expect(await store.get('silent', 'a')).to.deep.equal({ id: 'a', n: 1 });
        await store.dropCollection('silent');
        // The driver's own close waited forever here, for an answer on a connection that was gone.
        await proxy.close();
        await sleep(500);
        const started = performance.now();
        await store.close();
        const closeMs = performance.now() - started;
        expect(closeMs).to.be.below(8_000);
        console.log(
          `      (healthy ${recoveryMs.toFixed(0)} ms after the server answered again; closed in ${closeMs.toFixed(0)} ms)`,
        );
      } finally {
        await proxy.close();
      }
    });

    it('starts while the server is down, fails fast, and connects by itself once it is up', async () => {
      await stop();
      const store = openOnTarget({ serverSelectionTimeoutMs: 1_000 });
      let started = performance.now();
      await expectRejection(store.get('outage2', 'a'), ReadStoreUnavailableError);
      expect(performance.now() - started).to.be.below(3_000);
      started = performance.now();
      await expectRejection(store.find('outage2'), ReadStoreUnavailableError);
      expect(performance.now() - started).to.be.below(100);
      const health = await store.health();
      expect(health.healthy).to.equal(false);
      expect(health.reason).to.match(/^MongoDB at 127\.0\.0\.1:\d+ unreachable: .+/);

      await restart();
      await waitFor(async () => (await store.health()).healthy, 10_000);
      await store.write([{ op: 'upsert', collection: 'outage2', doc: { id: 'a', v: 1 } }]);
      expect(await store.get('outage2', 'a')).to.deep.equal({ id: 'a', v: 1 });
      await store.dropCollection('outage2');
    });

    it('lets the stores kept in it declare their collections again when the first try met the outage', async () => {
      await stop();
      const store = openOnTarget({ serverSelectionTimeoutMs: 1_000 });
      const sessions = createSessionStore({ readStore: store, clock: () => new Date(), ttlMs: 60_000 });
      const embeddings = createReadStoreEmbeddingCache(store, 0);
      const active = createReadStoreActiveCollectionStore(store);
      const registry = createProjectionRegistry(store, []);
      const vector = new Float32Array([0.25, 0.5]);
      const firstUses = {
        sessions: () => sessions.create('user-1'),
        embeddings: () => embeddings.put('model', [{ hash: 'h1', vector }]),
        active: () => active.read(),
        registry: () => registry.init(),
      };
      for (const use of Object.values(firstUses)) await expectRejection(use(), ReadStoreUnavailableError);

      // Each declared its collection with a server that was down; a process keeps running after that.
      await restart();
      await waitFor(async () => (await store.health()).healthy, 10_000);
      const { sid } = await sessions.create('user-1');
      expect((await sessions.find(sid))?.userId).to.equal('user-1');
      await embeddings.put('model', [{ hash: 'h1', vector }]);
      expect([...((await embeddings.get('model', ['h1'])).get('h1') ?? [])]).to.deep.equal([0.25, 0.5]);
      expect(await active.read()).to.equal(null);
      await registry.init();
      expect(await registry.active('anything')).to.equal(null);
    });

    it('keeps aggregate snapshots as a cache: commands are decided from the log while it is down', async () => {
      const counter = defineAggregate({
        category: 'counter',
        idOf: () => 'counter',
        decider: counterDecider,
        events: defineEvents<Counted>({ Counted: {} }),
        snapshot: { every: 2, schema: 1 },
      });
      await stop();
      // The snapshots' collection is first declared while the server is down.
      const snapshots = createReadStoreSnapshots(openOnTarget({ serverSelectionTimeoutMs: 1_000 }));
      const handler = createCommandHandler(counter, { eventStore: createMemoryEventStore(), snapshots });
      const count = () =>
        handler.handle('one', {
          type: 'Count',
          data: {},
          metadata: { now: '2026-12-08T00:00:00.000Z', actorId: 'a', correlationId: 'c' },
        });
      for (let i = 1; i <= 3; i += 1) expect((await count()).state).to.equal(i);
      expect(await snapshots.load('counter-one')).to.equal(null);

      await restart();
      // Once the server is back, the collection is declared and snapshots are saved again.
      await waitFor(async () => {
        await count();
        return (await snapshots.load('counter-one')) !== null;
      }, 10_000);
      const { state, version } = await handler.read('one');
      expect(await snapshots.load('counter-one')).to.deep.include({ schema: 1, state: version });
      expect(state).to.equal(version);
    });
  });
});

type Counted = Event<'Counted', Record<string, never>>;
const counterDecider: Decider<Command<'Count', Record<string, never>>, Counted, number> = {
  decide: () => [{ type: 'Counted', data: {} }],
  evolve: (total) => total + 1,
  initialState: () => 0,
};
