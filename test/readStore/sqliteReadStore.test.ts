import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { normalizeForIndex } from '../../src/text/normalize.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';
import { ReadStoreUnavailableError } from '../../src/readStore/readStore.js';
import { readStoreContract } from '../contracts/readStore.contract.js';
import { mountSmallDisk, type SmallDisk } from '../support/smallDisk.js';
import { expectRejection } from '../support/expectRejection.js';

readStoreContract('sqlite', async () => {
  // Configured as the application configures it (the contract checks Arabic folding through it).
  const store = createSqliteReadStore({ path: ':memory:', normalizeText: normalizeForIndex });
  return { store, dispose: () => store.close() };
});

describe('SQLite read store', () => {
  it('applies a write batch atomically: a failing operation leaves nothing of the batch', async () => {
    const store = createSqliteReadStore({ path: ':memory:' });
    await store.write([{ op: 'upsert', collection: 'items', doc: { id: 'a', v: 1 } }]);
    await expectRejection(
      store.write([
        { op: 'upsert', collection: 'items', doc: { id: 'b', v: 2 } },
        { op: 'upsert', collection: 'items', doc: { id: '' } },
      ]),
      Error,
    );
    expect(await store.get('items', 'b')).to.equal(null);
    expect(await store.count('items')).to.equal(1);
    await store.close();
  });

  it('searches through the normaliser hook, on indexed text and queries alike', async () => {
    const unifyAlef = (text: string): string => text.replace(/[أإآ]/g, 'ا');
    const store = createSqliteReadStore({ path: ':memory:', normalizeText: unifyAlef });
    await store.ensureCollection({ name: 'notes', textFields: ['text'] });
    await store.write([{ op: 'upsert', collection: 'notes', doc: { id: 'n1', text: 'أحمد يكتب تقريرا' } }]);
    expect((await store.search('notes', 'احمد')).map((h) => h.doc.id)).to.deep.equal(['n1']);
    expect((await store.search('notes', 'إحمد')).map((h) => h.doc.id)).to.deep.equal(['n1']);
    expect((await store.get('notes', 'n1'))?.['text']).to.equal('أحمد يكتب تقريرا');
    await store.close();
  });

  it('leaves no readable trace of deleted documents or their text index on disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'archivist-rs-'));
    const store = createSqliteReadStore({ path: join(dir, 'read.db') });
    await store.ensureCollection({ name: 'messages', textFields: ['text'] });
    const secret = 'zanzibarquokka';
    await store.write([
      { op: 'upsert', collection: 'messages', doc: { id: 'm1', text: `the password is ${secret}` } },
      { op: 'upsert', collection: 'messages', doc: { id: 'm2', text: 'harmless' } },
    ]);
    await store.write([{ op: 'delete', collection: 'messages', id: 'm1' }]);
    await store.close();
    const files = readdirSync(dir).filter((file) =>
      readFileSync(join(dir, file)).includes(Buffer.from(secret)),
    );
    expect(files).to.deep.equal([]);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('SQLite read store on a disk that fills up', function () {
  let disk: SmallDisk | null = null;
  before(function () {
    const mounted = mountSmallDisk(4);
    if ('unavailable' in mounted) {
      console.log(`      skipped: ${mounted.unavailable}`);
      this.skip();
    }
    disk = mounted;
  });
  after(() => disk?.dispose());

  it('answers writes as unavailable (a 503) while the disk is full, serves reads, and writes once freed', async () => {
    const store = createSqliteReadStore({ path: join(disk!.dir, 'read.db') });
    try {
      await store.ensureCollection({ name: 'docs', textFields: ['text'] });
      await store.write([{ op: 'upsert', collection: 'docs', doc: { id: 'a', text: 'kept before' } }]);
      disk!.fill();
      const refused = await expectRejection(
        store.write([{ op: 'upsert', collection: 'docs', doc: { id: 'b', text: 'x'.repeat(100_000) } }]),
        ReadStoreUnavailableError,
      );
      expect(refused.message).to.match(
        /^SQLite read store at .*read\.db: database or disk is full \(SQLITE_FULL\)$/,
      );
      expect(await store.get('docs', 'a')).to.deep.equal({ id: 'a', text: 'kept before' });
      expect(await store.get('docs', 'b')).to.equal(null);

      disk!.free();
      await store.write([{ op: 'upsert', collection: 'docs', doc: { id: 'b', text: 'written after' } }]);
      expect((await store.search('docs', 'written')).map((hit) => hit.doc.id)).to.deep.equal(['b']);
    } finally {
      await store.close();
    }
  });
});
