import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { seeded } from '../support/seededRandom.js';
import { MemoryTextIndex } from '../../src/readStore/memoryTextIndex.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';
import { WriteConflictError } from '../../src/readStore/readStore.js';
import { foldCase, stemmedTokens } from '../../src/text/textTokens.js';
import { porterStem } from '../../src/text/porterStemmer.js';

const random = seeded(11);
// English-like words with Zipf frequencies, stemmed by the porter tokenizer (running → run…).
const stems = [
  'river',
  'bank',
  'erosion',
  'measure',
  'water',
  'sensor',
  'station',
  'flow',
  'report',
  'season',
];
const vocabulary = Array.from({ length: 300 }, (_, i) => `${stems[i % stems.length]}${i}ing`);
const weights = vocabulary.map((_, rank) => 1 / (rank + 2.7));
const total = weights.reduce((sum, weight) => sum + weight, 0);
function word(): string {
  let target = random() * total;
  for (let i = 0; i < weights.length; i += 1) {
    target -= weights[i]!;
    if (target <= 0) return vocabulary[i]!;
  }
  return vocabulary[vocabulary.length - 1]!;
}
const sentence = (length: number): string => Array.from({ length }, word).join(' ');
const tokens = (...values: string[]): string[] => values.flatMap((value) => stemmedTokens(foldCase(value)));

interface Ranked {
  rowid: number;
  score: number;
}

/** Same scores in the same order; rows of equal score may change places only at the cut. */
function expectSameRanking(actual: Ranked[], expected: Ranked[], label: string): void {
  expect(actual.length, label).to.equal(expected.length);
  actual.forEach((row, i) => expect(row.score, `${label} #${i}`).to.be.closeTo(expected[i]!.score, 1e-9));
  const scoreOf = new Map(expected.map((row) => [row.rowid, row.score]));
  for (const row of actual) {
    if (!scoreOf.has(row.rowid)) expect(row.score, label).to.be.closeTo(expected.at(-1)!.score, 1e-9);
  }
}

const ways: Array<
  [string, (index: MemoryTextIndex, rowid: number, f0: string, f1: string) => void, number?]
> = [
  ['given tokens', (index, rowid, f0, f1) => index.set(rowid, tokens(f0, f1))],
  ['given text', (index, rowid, f0, f1) => index.setText(rowid, [foldCase(f0), foldCase(f1)], porterStem)],
  [
    'given text, its table of words starting again every 50 words',
    (index, rowid, f0, f1) => index.setText(rowid, [foldCase(f0), foldCase(f1)], porterStem),
    50,
  ],
];

for (const [way, setRow, wordTableLimit] of ways)
  describe(`in-memory BM25 index (what match-any searches read), ${way}`, () => {
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(f0, f1, tokenize='porter unicode61 remove_diacritics 2')`);
    const insert = db.prepare('INSERT INTO t (rowid, f0, f1) VALUES (?, ?, ?)');
    const remove = db.prepare('DELETE FROM t WHERE rowid = ?');
    const index = new MemoryTextIndex(wordTableLimit === undefined ? {} : { wordTableLimit });
    const put = (rowid: number, f0: string, f1: string): void => {
      remove.run(rowid);
      insert.run(rowid, f0, f1);
      setRow(index, rowid, f0, f1);
    };
    const fts = (terms: readonly string[], k: number): Ranked[] =>
      (
        db
          .prepare('SELECT rowid, bm25(t) AS rank FROM t WHERE t MATCH ? ORDER BY rank, rowid LIMIT ?')
          .all(terms.map((term) => `"${term}"`).join(' OR '), k) as Array<{ rowid: number; rank: number }>
      ).map((row) => ({ rowid: row.rowid, score: -row.rank }));
    const randomQuery = (): string[] => {
      const terms = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
        random() < 0.1 ? 'absentword' : vocabulary[Math.floor(random() ** 2 * vocabulary.length)]!,
      );
      if (random() < 0.1) terms.push(terms[0]!);
      return terms;
    };
    const expectSameAsFts = (queries: number): void => {
      for (let query = 0; query < queries; query += 1) {
        const terms = randomQuery();
        const k = [1, 5, 20, 50][query % 4]!;
        expectSameRanking(index.top(tokens(...terms), k), fts(terms, k), `${terms.join(' ')} (k ${k})`);
      }
    };
    before(() => {
      db.transaction(() => {
        for (let row = 1; row <= 3_000; row += 1)
          put(row, sentence(5 + Math.floor(random() * 60)), sentence(Math.floor(random() * 4)));
      })();
    });
    after(() => db.close());

    it("ranks as FTS5's bm25() does: common, rare, repeated and absent terms", () => {
      expect(index.rows).to.equal(3_000);
      expectSameAsFts(300);
    });

    it('stays the same as FTS5 through replaced and deleted rows, and compaction', () => {
      db.transaction(() => {
        for (let change = 0; change < 30_000; change += 1) {
          const rowid = 1 + Math.floor(random() * 4_000);
          if (random() < 0.3) {
            remove.run(rowid);
            index.delete(rowid);
          } else put(rowid, sentence(3 + Math.floor(random() * 40)), '');
        }
      })();
      const rows = db.prepare('SELECT count(*) FROM t').pluck().get() as number;
      expect(index.rows).to.equal(rows);
      expectSameAsFts(200);
    });

    it('answers nothing for no rows, no terms or k 0', () => {
      expect(new MemoryTextIndex().top(['river'], 5)).to.deep.equal([]);
      expect(index.top([], 5)).to.deep.equal([]);
      expect(index.top(tokens(vocabulary[0]!), 0)).to.deep.equal([]);
    });
  });

describe('SQLite read store: match-any searches from the in-memory copy', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'archivist-memtext-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const docs = (count: number, from = 0) =>
    Array.from({ length: count }, (_, i) => ({
      op: 'upsert' as const,
      collection: 'chunks',
      doc: { id: `c${from + i}`, text: sentence(10 + (i % 30)), heading: sentence(2) },
    }));
  const ids = (hits: Array<{ doc: { id: string } }>) => hits.map((hit) => hit.doc.id);

  it('answers what FTS5 answered, and follows its own writes, deletions and rolled-back batches', async () => {
    const store = createSqliteReadStore({ path: join(dir, 'read.db') });
    await store.ensureCollection({ name: 'chunks', textFields: ['text', 'heading'] });
    await store.write(docs(2_500));
    const query = `${vocabulary[3]} ${vocabulary[40]} ${vocabulary[120]}`;
    const search = () => store.search<{ id: string }>('chunks', query, { match: 'any', limit: 20 });
    const fromFts = await search(); // also starts the copy's build
    await store.settleTextIndexes();
    expect(ids(await search())).to.deep.equal(ids(fromFts));

    await store.write([
      {
        op: 'upsert',
        collection: 'chunks',
        doc: { id: 'fresh', text: `${vocabulary[120]} `.repeat(30), heading: '' },
      },
    ]);
    expect(ids(await search())[0]).to.equal('fresh');
    await store.write([{ op: 'delete', collection: 'chunks', id: 'fresh' }]);
    expect(ids(await search())).to.deep.equal(ids(fromFts));
    await store
      .write([
        {
          op: 'upsert',
          collection: 'chunks',
          doc: { id: 'doomed', text: `${vocabulary[120]} `.repeat(30), heading: '' },
        },
        { op: 'expect', collection: 'chunks', id: 'c1', fields: { text: 'not its text' } },
      ])
      .catch(() => undefined);
    expect(ids(await search())).to.not.include('doomed');
    await store.close();
  });

  it('commits writes asked for at once each on its own, in their order: a failed one leaves nothing, in the table or its copy', async () => {
    const store = createSqliteReadStore({ path: join(dir, 'read.db') });
    await store.ensureCollection({ name: 'chunks', textFields: ['text', 'heading'] });
    await store.write(docs(200));
    const search = (word: string) => store.search<{ id: string }>('chunks', word, { match: 'any', limit: 5 });
    await search('zebra'); // starts the copy's build
    await store.settleTextIndexes();
    // Asked for in one turn of the event loop, as the projections one append wakes ask for theirs.
    const outcomes = await Promise.allSettled([
      store.write([
        { op: 'upsert', collection: 'chunks', doc: { id: 'z1', text: 'zebra one', heading: '' } },
      ]),
      store.write([
        { op: 'upsert', collection: 'chunks', doc: { id: 'z2', text: 'zebra two okapi', heading: '' } },
        { op: 'expect', collection: 'chunks', id: 'z1', fields: null },
      ]),
      store.write([
        { op: 'expect', collection: 'chunks', id: 'z1', fields: { text: 'zebra one' } },
        { op: 'upsert', collection: 'chunks', doc: { id: 'z3', text: 'zebra three', heading: '' } },
      ]),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).to.be.instanceOf(WriteConflictError);
    expect(await store.get('chunks', 'z2')).to.equal(null);
    expect(await store.get('chunks', 'z3')).to.deep.include({ text: 'zebra three' });
    expect(ids(await search('okapi'))).to.deep.equal([]);
    expect(ids(await search('zebra')).sort()).to.deep.equal(['z1', 'z3']);
    await store.close();
    // What was committed is on disk, as the copy showed.
    const reopened = createSqliteReadStore({ path: join(dir, 'read.db') });
    expect(await reopened.get('chunks', 'z3')).to.deep.include({ text: 'zebra three' });
    expect(await reopened.get('chunks', 'z2')).to.equal(null);
    await reopened.close();
  });

  it('keeps the order changes were asked in: a write asked for before a drop is not applied after it', async () => {
    const store = createSqliteReadStore({ path: join(dir, 'read.db') });
    await store.ensureCollection({ name: 'chunks', textFields: ['text', 'heading'] });
    const written = store.write([
      { op: 'upsert', collection: 'chunks', doc: { id: 'x', text: 'x', heading: '' } },
    ]);
    const dropped = store.dropCollection('chunks');
    await Promise.all([written, dropped]);
    expect(await store.count('chunks')).to.equal(0);
    await store.close();
  });

  it('builds its copy after a restart from the stored rows, deleted ones left out, answering as FTS5', async () => {
    const path = join(dir, 'read.db');
    const first = createSqliteReadStore({ path });
    await first.ensureCollection({ name: 'chunks', textFields: ['text', 'heading'] });
    await first.write(docs(1_800));
    await first.write(
      Array.from({ length: 300 }, (_, i) => ({
        op: 'delete' as const,
        collection: 'chunks',
        id: `c${i * 5}`,
      })),
    );
    await first.close();
    const store = createSqliteReadStore({ path });
    await store.ensureCollection({ name: 'chunks', textFields: ['text', 'heading'] });
    for (const words of [
      [3, 40, 120],
      [7, 300],
      [1, 2, 900],
    ]) {
      const query = words.map((word) => vocabulary[word]).join(' ');
      const search = () => store.search<{ id: string }>('chunks', query, { match: 'any', limit: 30 });
      const fromFts = await search();
      await store.settleTextIndexes();
      const fromCopy = await search();
      expect(ids(fromCopy)).to.deep.equal(ids(fromFts));
      expect(ids(fromCopy)).to.not.include.members(['c0', 'c5', 'c10']);
    }
    await store.close();
  });

  it("drops its copy when another connection writes, and answers that connection's rows", async () => {
    const path = join(dir, 'read.db');
    const store = createSqliteReadStore({ path });
    await store.ensureCollection({ name: 'chunks', textFields: ['text', 'heading'] });
    await store.write(docs(500));
    // A word no row has yet: the copy built before the other connection's write would answer nothing.
    const query = `unheardof ${vocabulary[201]}`;
    await store.search('chunks', query, { match: 'any', limit: 5 });
    await store.settleTextIndexes();
    const other = createSqliteReadStore({ path });
    await other.write([
      {
        op: 'upsert',
        collection: 'chunks',
        doc: { id: 'elsewhere', text: 'an unheardof word', heading: '' },
      },
    ]);
    await other.close();
    const hits = await store.search<{ id: string }>('chunks', query, { match: 'any', limit: 5 });
    expect(ids(hits)[0]).to.equal('elsewhere');
    await store.settleTextIndexes();
    expect(ids(await store.search<{ id: string }>('chunks', query, { match: 'any', limit: 5 }))[0]).to.equal(
      'elsewhere',
    );
    await store.close();
  });
});
