import Database from 'better-sqlite3';
import { expect } from 'chai';
import { seeded } from '../support/seededRandom.js';
import { createFtsTopMatches, type RankedRow } from '../../src/readStore/ftsTopMatches.js';

describe('FTS5 top matches (MaxScore over bm25)', () => {
  const random = seeded(7);
  // Words with Zipf frequencies: a few in most rows, a long tail in few.
  const vocabulary = Array.from({ length: 400 }, (_, i) => `w${i}x`);
  const weights = vocabulary.map((_, rank) => 1 / (rank + 2.7));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const word = (): string => {
    let target = random() * total;
    for (let i = 0; i < weights.length; i += 1) {
      target -= weights[i]!;
      if (target <= 0) return vocabulary[i]!;
    }
    return vocabulary[vocabulary.length - 1]!;
  };
  const sentence = (length: number): string => Array.from({ length }, word).join(' ');

  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(f0, f1, tokenize='porter unicode61 remove_diacritics 2')`);
  const insert = db.prepare('INSERT INTO t (rowid, f0, f1) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let row = 1; row <= 4_000; row += 1)
      insert.run(row, sentence(5 + Math.floor(random() * 60)), sentence(Math.floor(random() * 4)));
  })();
  let version = 1;
  const top = createFtsTopMatches({ statement: (sql) => db.prepare(sql), version: () => String(version) });
  const plain = (terms: readonly string[], k: number): RankedRow[] =>
    db
      .prepare('SELECT rowid, bm25(t) AS rank FROM t WHERE t MATCH ? ORDER BY rank, rowid LIMIT ?')
      .all(terms.map((term) => `"${term}"`).join(' OR '), k) as RankedRow[];
  after(() => db.close());

  /** Same scores in the same order (rows of equal score may change places). */
  function expectSameRanking(actual: RankedRow[], expected: RankedRow[], label: string): void {
    expect(actual.length, label).to.equal(expected.length);
    actual.forEach((row, i) => expect(row.rank, `${label} #${i}`).to.be.closeTo(expected[i]!.rank, 1e-9));
    const scoreOf = new Map(expected.map((row) => [row.rowid, row.rank]));
    for (const row of actual) {
      if (!scoreOf.has(row.rowid)) {
        // Only a tie with the last row kept can differ.
        expect(row.rank, `${label}: row ${row.rowid}`).to.be.closeTo(
          expected[expected.length - 1]!.rank,
          1e-9,
        );
      }
    }
  }

  it('gives the pages the plain query gives, for common, rare, repeated and absent terms', () => {
    for (let query = 0; query < 300; query += 1) {
      const size = 2 + Math.floor(random() * 4);
      const terms = Array.from({ length: size }, () =>
        random() < 0.1 ? 'absentx' : vocabulary[Math.floor(random() ** 2 * vocabulary.length)]!,
      );
      if (random() < 0.1) terms.push(terms[0]!);
      const k = [1, 5, 20, 50][query % 4]!;
      expectSameRanking(top.top('t', terms, k), plain(terms, k), `${terms.join(' ')} (k ${k})`);
    }
  });

  it('counts afresh once the index changed', () => {
    const terms = ['w0x', 'w399x'];
    const before = top.top('t', terms, 10);
    db.prepare('INSERT INTO t (rowid, f0, f1) VALUES (?, ?, ?)').run(10_001, 'w399x w399x w399x', '');
    version += 1;
    const afterInsert = top.top('t', terms, 10);
    expect(afterInsert).to.not.deep.equal(before);
    expectSameRanking(afterInsert, plain(terms, 10), 'after an insert');
  });
});
