import { expect } from 'chai';
import type { Doc, ReadStore } from '../../src/readStore/readStore.js';
import { UnsupportedQueryError, WriteConflictError } from '../../src/readStore/readStore.js';
import { expectRejection } from '../support/expectRejection.js';

export interface ReadStoreFixture {
  store: ReadStore;
  dispose(): Promise<void>;
}

let counter = 0;
/** A fresh collection per test, so suites also work against a shared server. */
const newCollection = (): string => `t${process.pid}_${Date.now() % 1_000_000}_${(counter += 1)}`;

const people: Doc[] = [
  { id: 'p1', name: 'Ada', age: 36, team: 'core', active: true, meta: { lang: 'en' } },
  { id: 'p2', name: 'Brian', age: 41, team: 'core', active: false, meta: { lang: 'en' } },
  { id: 'p3', name: 'Chen', age: 29, team: 'docs', active: true, meta: { lang: 'zh' } },
  { id: 'p4', name: 'Dalia', age: 33, team: 'docs', active: true, meta: { lang: 'ar' }, nickname: null },
  { id: 'p5', name: 'Emil', age: 52, active: false },
];

/** The ReadStore port's semantics; every adapter must pass it unchanged. */
export function readStoreContract(adapter: string, create: () => Promise<ReadStoreFixture>): void {
  describe(`ReadStore contract: ${adapter}`, function () {
    this.timeout(20_000);
    let fixture: ReadStoreFixture;
    let store: ReadStore;
    let name: string;
    beforeEach(async () => {
      fixture = await create();
      store = fixture.store;
      name = newCollection();
      await store.ensureCollection({ name, indexes: ['team', 'age', 'meta.lang'] });
      await store.write(people.map((doc) => ({ op: 'upsert', collection: name, doc })));
    });
    afterEach(async () => {
      await store.dropCollection(name);
      await fixture.dispose();
    });
    const ids = (docs: Doc[]): string[] => docs.map((doc) => doc.id);

    describe('documents', () => {
      it('gets a document by id, and null for an unknown id or collection', async () => {
        expect(await store.get(name, 'p3')).to.deep.equal(people[2]);
        expect(await store.get(name, 'nope')).to.equal(null);
        expect(await store.get(newCollection(), 'p3')).to.equal(null);
      });

      it('keeps documents when a collection is declared again, as every restart does', async () => {
        await store.ensureCollection({ name, indexes: ['team', 'age', 'meta.lang'] });
        await store.ensureCollection({ name, indexes: ['team', 'age', 'meta.lang', 'name'] });
        expect(await store.count(name, { team: 'core' })).to.equal(2);
        expect(
          ids(await store.find(name, { filter: { age: { $gt: 40 } }, sort: [['age', 1]] })),
        ).to.deep.equal(['p2', 'p5']);
      });

      it('replaces a document on upsert', async () => {
        await store.write([{ op: 'upsert', collection: name, doc: { id: 'p1', name: 'Ada L.' } }]);
        expect(await store.get(name, 'p1')).to.deep.equal({ id: 'p1', name: 'Ada L.' });
      });

      it('patches top-level fields, removes fields set to undefined, ignores unknown ids', async () => {
        await store.write([
          {
            op: 'patch',
            collection: name,
            id: 'p2',
            set: { age: 42, active: undefined, meta: { lang: 'de' } },
          },
          { op: 'patch', collection: name, id: 'ghost', set: { age: 1 } },
        ]);
        expect(await store.get(name, 'p2')).to.deep.equal({
          id: 'p2',
          name: 'Brian',
          age: 42,
          team: 'core',
          meta: { lang: 'de' },
        });
        expect(await store.get(name, 'ghost')).to.equal(null);
      });

      it('deletes by id and by filter', async () => {
        await store.write([
          { op: 'delete', collection: name, id: 'p1' },
          { op: 'deleteWhere', collection: name, filter: { team: 'docs' } },
        ]);
        expect(ids(await store.find(name, { sort: [['age', 1]] }))).to.deep.equal(['p2', 'p5']);
      });

      it('applies operations in order', async () => {
        await store.write([
          { op: 'upsert', collection: name, doc: { id: 'x', v: 1 } },
          { op: 'patch', collection: name, id: 'x', set: { v: 2 } },
          { op: 'delete', collection: name, id: 'x' },
          { op: 'upsert', collection: name, doc: { id: 'x', v: 3 } },
        ]);
        expect(await store.get(name, 'x')).to.deep.equal({ id: 'x', v: 3 });
      });
    });

    describe('queries', () => {
      it('filters by equality on strings, numbers, booleans and dotted paths', async () => {
        expect(ids(await store.find(name, { filter: { team: 'core' }, sort: [['age', 1]] }))).to.deep.equal([
          'p1',
          'p2',
        ]);
        expect(ids(await store.find(name, { filter: { age: 29 } }))).to.deep.equal(['p3']);
        expect(ids(await store.find(name, { filter: { active: true }, sort: [['age', 1]] }))).to.deep.equal([
          'p3',
          'p4',
          'p1',
        ]);
        expect(ids(await store.find(name, { filter: { 'meta.lang': 'en', active: false } }))).to.deep.equal([
          'p2',
        ]);
      });

      it('treats null as "null or missing", like MongoDB', async () => {
        expect(ids(await store.find(name, { filter: { team: null } }))).to.deep.equal(['p5']);
        expect(ids(await store.find(name, { filter: { nickname: null }, sort: [['age', 1]] }))).to.deep.equal(
          ['p3', 'p4', 'p1', 'p2', 'p5'],
        );
        expect(
          ids(await store.find(name, { filter: { team: { $ne: null } }, sort: [['age', 1]] })),
        ).to.deep.equal(['p3', 'p4', 'p1', 'p2']);
      });

      it('supports $in, $nin and $ne, including missing fields', async () => {
        expect(
          ids(await store.find(name, { filter: { team: { $in: ['docs', 'ops'] } }, sort: [['age', 1]] })),
        ).to.deep.equal(['p3', 'p4']);
        expect(
          ids(await store.find(name, { filter: { team: { $nin: ['core'] } }, sort: [['age', 1]] })),
        ).to.deep.equal(['p3', 'p4', 'p5']);
        expect(
          ids(await store.find(name, { filter: { team: { $ne: 'docs' } }, sort: [['age', 1]] })),
        ).to.deep.equal(['p1', 'p2', 'p5']);
        expect(await store.find(name, { filter: { team: { $in: [] } } })).to.deep.equal([]);
      });

      it('takes $in and $nin lists of thousands of values, of mixed types', async () => {
        const many = Array.from({ length: 5_000 }, (_, i) => `team-${i}`);
        expect(
          ids(
            await store.find(name, {
              filter: { team: { $in: [...many, 'ops', 'docs'] } },
              sort: [['age', 1]],
            }),
          ),
        ).to.deep.equal(['p3', 'p4']);
        expect(
          ids(await store.find(name, { filter: { team: { $nin: [...many, 'core'] } }, sort: [['age', 1]] })),
        ).to.deep.equal(['p3', 'p4', 'p5']);
        expect(
          ids(
            await store.find(name, {
              filter: { age: { $in: [33, 41, 'x', true, ...many] } },
              sort: [['age', 1]],
            }),
          ),
        ).to.deep.equal(['p4', 'p2']);
        expect(ids(await store.find(name, { filter: { team: { $in: [null, ...many] } } }))).to.deep.equal([
          'p5',
        ]);
      });

      it('takes lists longer than any bound on query parameters (a restricted user’s visible documents)', async () => {
        // SQLite takes at most 32,766 parameters in one statement.
        const many = Array.from({ length: 40_000 }, (_, i) => `team-${i}`);
        const filter = { team: { $in: [...many, 'docs'] } };
        expect(ids(await store.find(name, { filter, sort: [['age', 1]] }))).to.deep.equal(['p3', 'p4']);
        expect(await store.count(name, filter)).to.equal(2);
        expect(
          ids(await store.find(name, { filter: { team: { $nin: [...many, 'core'] } }, sort: [['age', 1]] })),
        ).to.deep.equal(['p3', 'p4', 'p5']);
        const ages = Array.from({ length: 40_000 }, (_, i) => 1_000 + i);
        expect(
          ids(await store.find(name, { filter: { age: { $in: [...ages, 33, 41] } }, sort: [['age', 1]] })),
        ).to.deep.equal(['p4', 'p2']);
      });

      it('supports ranges that never compare across types', async () => {
        expect(
          ids(await store.find(name, { filter: { age: { $gte: 33, $lt: 41 } }, sort: [['age', 1]] })),
        ).to.deep.equal(['p4', 'p1']);
        expect(ids(await store.find(name, { filter: { age: { $gt: 50 } } }))).to.deep.equal(['p5']);
        expect(
          ids(await store.find(name, { filter: { name: { $gte: 'C', $lt: 'E' } }, sort: [['name', 1]] })),
        ).to.deep.equal(['p3', 'p4']);
        expect(await store.find(name, { filter: { name: { $gt: 10 } } })).to.deep.equal([]);
      });

      it('supports $exists (a null value exists)', async () => {
        expect(ids(await store.find(name, { filter: { nickname: { $exists: true } } }))).to.deep.equal([
          'p4',
        ]);
        expect(ids(await store.find(name, { filter: { team: { $exists: false } } }))).to.deep.equal(['p5']);
      });

      it('sorts on several fields, skips and limits', async () => {
        const sorted = await store.find(name, {
          sort: [
            ['team', -1],
            ['age', 1],
          ],
        });
        expect(ids(sorted)).to.deep.equal(['p3', 'p4', 'p1', 'p2', 'p5']);
        expect(ids(await store.find(name, { sort: [['age', -1]], skip: 1, limit: 2 }))).to.deep.equal([
          'p2',
          'p1',
        ]);
      });

      it('counts with and without a filter', async () => {
        expect(await store.count(name)).to.equal(5);
        expect(await store.count(name, { active: true })).to.equal(3);
        expect(await store.count(newCollection())).to.equal(0);
      });

      it('counts documents grouped by a field', async () => {
        const groups = await store.countBy(name, 'team');
        expect(groups).to.have.deep.members([
          { value: 'core', count: 2 },
          { value: 'docs', count: 2 },
          { value: null, count: 1 },
        ]);
        expect(await store.countBy(name, 'active', { team: 'core' })).to.have.deep.members([
          { value: true, count: 1 },
          { value: false, count: 1 },
        ]);
        expect(await store.countBy(name, 'meta.lang', { active: true })).to.have.deep.members([
          { value: 'en', count: 1 },
          { value: 'zh', count: 1 },
          { value: 'ar', count: 1 },
        ]);
      });

      it('rejects operators and paths outside the supported subset', async () => {
        await expectRejection(
          store.find(name, { filter: { age: { $where: 'x' } as never } }),
          UnsupportedQueryError,
        );
        await expectRejection(store.find(name, { filter: { "x') OR 1=1 --": 1 } }), UnsupportedQueryError);
        await expectRejection(store.get('Bad Name', 'x'), UnsupportedQueryError);
      });
    });

    describe('full-text search', () => {
      let notes: string;
      beforeEach(async () => {
        notes = newCollection();
        await store.ensureCollection({ name: notes, indexes: ['owner'], textFields: ['title', 'body'] });
        await store.write(
          [
            {
              id: 'n1',
              owner: 'u1',
              title: 'Deployment guide',
              body: 'How to deploy the archive service on two machines.',
            },
            {
              id: 'n2',
              owner: 'u1',
              title: 'Holiday plans',
              body: 'Beaches and mountains; nothing about servers.',
            },
            {
              id: 'n3',
              owner: 'u2',
              title: 'Archive retention',
              body: 'Deleted conversations are purged after thirty days.',
            },
            { id: 'n4', owner: 'u2', title: 'Café notes', body: 'Crème brûlée at the café near the office.' },
          ].map((doc) => ({ op: 'upsert' as const, collection: notes, doc })),
        );
      });
      afterEach(async () => store.dropCollection(notes));

      it('finds documents containing every term, best first', async () => {
        const hits = await store.search(notes, 'archive deploy');
        expect(hits.map((hit) => hit.doc.id)).to.deep.equal(['n1']);
        const archive = await store.search(notes, 'archive');
        expect(archive.map((hit) => hit.doc.id)).to.have.members(['n1', 'n3']);
        expect(archive[0]!.score).to.be.at.least(archive[1]!.score);
      });

      it('with match any, finds documents with at least one term, those with more of them first', async () => {
        const hits = await store.search(notes, 'archive deploy', { match: 'any' });
        expect(hits.map((hit) => hit.doc.id)).to.deep.equal(['n1', 'n3']);
        const three = await store.search(notes, 'archive deploy beaches', { match: 'any' });
        expect(three.map((hit) => hit.doc.id)).to.have.members(['n1', 'n2', 'n3']);
        expect(await store.search(notes, 'volcano glacier', { match: 'any' })).to.deep.equal([]);
      });

      it('matches the last term as a prefix, ignores case and accents', async () => {
        expect((await store.search(notes, 'purg')).map((h) => h.doc.id)).to.deep.equal(['n3']);
        expect((await store.search(notes, 'CAFE creme')).map((h) => h.doc.id)).to.deep.equal(['n4']);
      });

      it('combines search with a filter, skip and limit', async () => {
        expect(
          (await store.search(notes, 'archive', { filter: { owner: 'u2' } })).map((h) => h.doc.id),
        ).to.deep.equal(['n3']);
        expect(await store.search(notes, 'archive', { limit: 1, skip: 5 })).to.deep.equal([]);
      });

      it('finds every filtered match with rankNewest above their number (an adapter may ignore it)', async () => {
        expect(
          (await store.search(notes, 'archive', { filter: { owner: 'u2' }, rankNewest: 10 })).map(
            (h) => h.doc.id,
          ),
        ).to.deep.equal(['n3']);
        expect(
          (await store.search(notes, 'archive', { filter: { owner: 'u2' }, rankNewest: 1 })).map(
            (h) => h.doc.id,
          ),
        ).to.deep.equal(['n3']);
      });

      it('treats query syntax as plain words and returns nothing for an empty query', async () => {
        expect(await store.search(notes, '"unbalanced AND OR NEAR( *')).to.be.an('array');
        expect(await store.search(notes, '   ')).to.deep.equal([]);
        expect(await store.search(notes, '!!!')).to.deep.equal([]);
      });

      it('stems English words, in both modes, as the embedded store (porter) does', async () => {
        await store.write([
          {
            op: 'upsert',
            collection: notes,
            doc: {
              id: 'n5',
              owner: 'u3',
              title: 'Mail relay',
              body: 'The relay is configured for two domains.',
            },
          },
        ]);
        expect((await store.search(notes, 'configuring')).map((h) => h.doc.id)).to.deep.equal(['n5']);
        expect((await store.search(notes, 'configurations relays')).map((h) => h.doc.id)).to.deep.equal([
          'n5',
        ]);
        expect(
          (await store.search(notes, 'configures', { match: 'any' })).map((h) => h.doc.id),
        ).to.deep.equal(['n5']);
      });

      it('folds Arabic hamza on waw and ya as on alef, in documents and queries (with the application normaliser)', async () => {
        await store.write([
          {
            op: 'upsert',
            collection: notes,
            doc: { id: 'n6', owner: 'u3', title: 'قائمة المهام', body: 'يتولى مسؤول النظام إعداد الخادم.' },
          },
        ]);
        // The words typed without their hamza: مسوول for مسؤول, قايمه for قائمة.
        expect((await store.search(notes, 'مسوول')).map((h) => h.doc.id)).to.deep.equal(['n6']);
        expect((await store.search(notes, 'قايمه', { match: 'any' })).map((h) => h.doc.id)).to.deep.equal([
          'n6',
        ]);
        expect((await store.search(notes, 'أعداد مسؤول')).map((h) => h.doc.id)).to.deep.equal(['n6']);
      });

      it('leaves stop words out of a match-any query that has other terms, and keeps them when it has not', async () => {
        // Without the rule "about" would bring n2 and "the" n1, n2 and n4.
        const hits = await store.search(notes, 'What about the archive?', { match: 'any' });
        expect(hits.map((hit) => hit.doc.id)).to.have.members(['n1', 'n3']);
        expect((await store.search(notes, 'about', { match: 'any' })).map((h) => h.doc.id)).to.deep.equal([
          'n2',
        ]);
        // Every term still counts when all are required.
        expect((await store.search(notes, 'the archive')).map((h) => h.doc.id)).to.deep.equal(['n1']);
      });

      it('keeps the index in step with updates and deletes', async () => {
        await store.write([
          { op: 'patch', collection: notes, id: 'n2', set: { body: 'Now about the archive after all.' } },
          { op: 'delete', collection: notes, id: 'n1' },
        ]);
        expect((await store.search(notes, 'archive')).map((h) => h.doc.id)).to.have.members(['n2', 'n3']);
        expect(await store.search(notes, 'beaches')).to.deep.equal([]);
        await store.write([{ op: 'deleteWhere', collection: notes, filter: { owner: 'u2' } }]);
        expect((await store.search(notes, 'archive')).map((h) => h.doc.id)).to.deep.equal(['n2']);
      });
    });

    it('gets many documents by id at once, ignoring unknown and repeated ids', async () => {
      const name = newCollection();
      await store.ensureCollection({ name });
      await store.write(
        Array.from({ length: 600 }, (_, i) => ({
          op: 'upsert' as const,
          collection: name,
          doc: { id: `d${i}`, i },
        })),
      );
      const ids = [...Array.from({ length: 600 }, (_, i) => `d${i}`), 'nope', 'd1', 'd1'];
      const found = await store.getMany<{ id: string; i: number }>(name, ids);
      expect(found.map((doc) => doc.i).sort((a, b) => a - b)).to.deep.equal(
        Array.from({ length: 600 }, (_, i) => i),
      );
      expect(await store.getMany(name, [])).to.deep.equal([]);
      expect(await store.getMany(newCollection(), ['d1'])).to.deep.equal([]);
    });

    describe('leases', () => {
      it('grants a lease to one owner at a time until it expires or is released, its epoch growing as it changes hands', async () => {
        const lease = `lease-${newCollection()}`;
        expect(await store.readLease(lease)).to.equal(null);
        const before = Date.now();
        const first = await store.acquireLease(lease, 'a', 300);
        expect(first).to.include({ name: lease, owner: 'a' });
        const held = await store.readLease(lease);
        expect(held).to.include({ owner: 'a', epoch: first!.epoch });
        expect(held!.expiresAt).to.be.within(before + 300, Date.now() + 300);
        expect(await store.acquireLease(lease, 'b', 300)).to.equal(null);
        expect(await store.acquireLease(lease, 'a', 300)).to.deep.equal(first); // renewed, same epoch
        await new Promise((resolve) => setTimeout(resolve, 400));
        expect(await store.acquireLease(lease, 'b', 300)).to.deep.equal({
          name: lease,
          owner: 'b',
          epoch: first!.epoch + 1,
        });
        await store.releaseLease(lease, 'b');
        expect(await store.acquireLease(lease, 'a', 300)).to.deep.equal({
          name: lease,
          owner: 'a',
          epoch: first!.epoch + 2,
        });
        await store.releaseLease(lease, 'a');
      });

      it('refuses, whole, a write fenced by a lease its writer no longer holds', async () => {
        const name = newCollection();
        await store.ensureCollection({ name });
        const lease = `fence-${name}`;
        const a = (await store.acquireLease(lease, 'a', 200))!;
        const fenceA = { op: 'fence', lease, owner: 'a', epoch: a.epoch } as const;
        await store.write([fenceA, { op: 'upsert', collection: name, doc: { id: 'x', by: 'a' } }]);
        await new Promise((resolve) => setTimeout(resolve, 250));
        // Expired, but nobody took it: the holder's writes still count.
        await store.write([fenceA, { op: 'upsert', collection: name, doc: { id: 'y', by: 'a' } }]);
        const b = (await store.acquireLease(lease, 'b', 5_000))!;
        const refused = await store
          .write([fenceA, { op: 'upsert', collection: name, doc: { id: 'z', by: 'a' } }])
          .then(
            () => null,
            (error: unknown) => error,
          );
        expect(refused).to.be.instanceOf(WriteConflictError).and.to.include({ reason: 'fenced' });
        expect(await store.get(name, 'z')).to.equal(null);
        await store.write([
          { op: 'fence', lease, owner: 'b', epoch: b.epoch },
          { op: 'upsert', collection: name, doc: { id: 'z', by: 'b' } },
        ]);
        expect(await store.get(name, 'z')).to.deep.equal({ id: 'z', by: 'b' });
        await store.releaseLease(lease, 'b');
      });

      it('applies a write only while an expected document is as expected', async () => {
        const name = newCollection();
        await store.ensureCollection({ name });
        await store.write([
          { op: 'expect', collection: name, id: 'p', fields: null },
          { op: 'upsert', collection: name, doc: { id: 'p', version: 1, generation: 1 } },
        ]);
        const stale = await store
          .write([
            { op: 'expect', collection: name, id: 'p', fields: null },
            { op: 'upsert', collection: name, doc: { id: 'q' } },
          ])
          .then(
            () => null,
            (error: unknown) => error,
          );
        expect(stale).to.be.instanceOf(WriteConflictError).and.to.include({ reason: 'unexpected' });
        expect(await store.get(name, 'q')).to.equal(null);
        await store.write([
          { op: 'expect', collection: name, id: 'p', fields: { version: 1, generation: 1 } },
          { op: 'upsert', collection: name, doc: { id: 'p', version: 2, generation: 1 } },
        ]);
        expect(await store.get(name, 'p')).to.deep.include({ version: 2 });
      });

      it('refuses only the failing one of writes issued together', async () => {
        // Issued in one turn, as the projections woken by one append do: an adapter may group them.
        const outcomes = await Promise.allSettled([
          store.write([{ op: 'upsert', collection: name, doc: { id: 'w1', n: 1 } }]),
          store.write([
            { op: 'upsert', collection: name, doc: { id: 'w2', n: 2 } },
            { op: 'expect', collection: name, id: 'p1', fields: { name: 'Someone else' } },
          ]),
          store.write([{ op: 'patch', collection: name, id: 'p3', set: { team: 'core' } }]),
          store.write([{ op: 'delete', collection: name, id: 'p2' }]),
        ]);
        expect(outcomes.map((outcome) => outcome.status)).to.deep.equal([
          'fulfilled',
          'rejected',
          'fulfilled',
          'fulfilled',
        ]);
        expect((outcomes[1] as PromiseRejectedResult).reason).to.be.instanceOf(WriteConflictError);
        expect(await store.get(name, 'w1')).to.deep.equal({ id: 'w1', n: 1 });
        expect(await store.get(name, 'w2')).to.equal(null);
        expect(await store.get(name, 'p3')).to.deep.include({ team: 'core' });
        expect(await store.get(name, 'p2')).to.equal(null);
      });
    });

    it('reports itself healthy', async () => {
      expect(await store.health()).to.deep.equal({ healthy: true, reason: null });
    });
  });
}
