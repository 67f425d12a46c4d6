import { expect } from 'chai';
import { normalizeForIndex } from '../../src/text/normalize.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';

/**
 * Filtered full-text search of the SQLite read store (what search_conversations asks): the index
 * drives, and `rankNewest` scores only the newest matches that pass the filter.
 */
describe('SQLite read store: filtered search', () => {
  async function seeded() {
    const store = createSqliteReadStore({ path: ':memory:', normalizeText: normalizeForIndex });
    await store.ensureCollection({ name: 'texts', indexes: ['owner'], textFields: ['text'] });
    // ann: 30 texts, "report" once in t0 (the oldest) and three times in t29 (the newest); many of
    // bob's newer texts also say "report".
    const docs = [
      ...Array.from({ length: 30 }, (_, i) => ({
        id: `ann-${String(i).padStart(2, '0')}`,
        owner: 'ann',
        text: i === 0 ? 'the report' : i === 29 ? 'report report report' : `a note about the budget ${i}`,
      })),
      ...Array.from({ length: 50 }, (_, i) => ({ id: `bob-${i}`, owner: 'bob', text: `report ${i} report` })),
    ];
    await store.write(docs.map((doc) => ({ op: 'upsert' as const, collection: 'texts', doc })));
    return store;
  }

  it('finds the filtered owner’s matches however many newer matches of others there are', async () => {
    const store = await seeded();
    const ids = async (options: { rankNewest?: number }) =>
      (await store.search('texts', 'report', { filter: { owner: 'ann' }, ...options })).map(
        (hit) => hit.doc.id,
      );
    expect(await ids({})).to.deep.equal(['ann-29', 'ann-00']);
    expect(await ids({ rankNewest: 2 })).to.deep.equal(['ann-29', 'ann-00']);
    await store.close();
  });

  it('with rankNewest, ranks only the newest matches of the filtered set, best first, and pages them', async () => {
    const store = await seeded();
    const budget = async (options: object) =>
      (await store.search('texts', 'budget', { filter: { owner: 'ann' }, ...options })).map(
        (hit) => hit.doc.id,
      );
    const all = await budget({ limit: 100 });
    expect(all).to.have.length(28);
    const newest = await budget({ limit: 100, rankNewest: 5 });
    expect([...newest].sort()).to.deep.equal(['ann-24', 'ann-25', 'ann-26', 'ann-27', 'ann-28']);
    const pages = [
      ...(await budget({ limit: 3, rankNewest: 5 })),
      ...(await budget({ limit: 3, skip: 3, rankNewest: 5 })),
    ];
    expect(pages).to.deep.equal(newest);
    await store.close();
  });
});
