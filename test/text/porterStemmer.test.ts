import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { porterStem } from '../../src/text/porterStemmer.js';

const root = join(import.meta.dirname, '..', '..');

/** Each token as SQLite's FTS5 porter tokenizer indexes it (the embedded read store's tokenizer). */
function fts5Stems(tokens: readonly string[]): string[] {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE words USING fts5(w, tokenize='porter unicode61 remove_diacritics 2');
           CREATE VIRTUAL TABLE terms USING fts5vocab(words, 'instance');`);
  const insert = db.prepare('INSERT INTO words (rowid, w) VALUES (?, ?)');
  db.transaction(() => tokens.forEach((token, i) => insert.run(i + 1, token)))();
  const stems: string[] = [];
  for (const row of db.prepare('SELECT term, doc FROM terms').all() as Array<{ term: string; doc: number }>)
    stems[row.doc - 1] = row.term;
  db.close();
  return stems;
}

/** Distinct lower-case words of English prose: the retrieval corpus and the project's own docs. */
function vocabulary(): string[] {
  const texts = [
    ...readdirSync(join(root, 'eval/retrieval/corpus/en')).map((file) =>
      readFileSync(join(root, 'eval/retrieval/corpus/en', file), 'utf8').replace(/<[^>]*>/g, ' '),
    ),
    ...readdirSync(join(root, 'docs'))
      .filter((file) => file.endsWith('.md'))
      .map((file) => readFileSync(join(root, 'docs', file), 'utf8')),
  ];
  const words = new Set<string>();
  for (const text of texts) for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) words.add(word);
  return [...words];
}

describe('porterStem', () => {
  it('stems as the Porter algorithm does', () => {
    const cases: Record<string, string> = {
      configuring: 'configur',
      configured: 'configur',
      configures: 'configur',
      configuration: 'configur',
      caresses: 'caress',
      ponies: 'poni',
      agreed: 'agre',
      hopping: 'hop',
      filing: 'file',
      happy: 'happi',
      relational: 'relat',
      generalization: 'gener',
      electricity: 'electr',
      adjustment: 'adjust',
      controlling: 'control',
      rolls: 'roll',
      is: 'is',
      sky: 'sky',
    };
    expect(Object.fromEntries(Object.keys(cases).map((word) => [word, porterStem(word)]))).to.deep.equal(
      cases,
    );
  });

  it('agrees with SQLite FTS5 on every word of English prose at hand', function () {
    this.timeout(20_000);
    const words = vocabulary();
    expect(words.length).to.be.above(5_000);
    const expected = fts5Stems(words);
    const differing = words.filter((word, i) => porterStem(word) !== expected[i]);
    expect(
      differing.map((word) => `${word}: ${porterStem(word)} ≠ ${expected[words.indexOf(word)]}`),
    ).to.deep.equal([]);
  });

  it('agrees with FTS5 on short, long, mixed-script and non-Latin tokens', () => {
    const tokens = [
      'a',
      'as',
      'ies',
      'sses',
      'eed',
      'bed',
      'ing',
      'aed',
      'x'.repeat(64) + 'ing',
      'ab'.repeat(31) + 'ing',
      'tableσs',
      'ωing',
      'ипing',
      'настройка',
      'الاعدادات',
      'مسوول',
      'ipv6s',
      '2024s',
    ];
    expect(tokens.map(porterStem)).to.deep.equal(fts5Stems(tokens));
  });

  it('leaves Arabic words unchanged', () => {
    expect(['مسوول', 'الشبكه', 'تثبيت'].map(porterStem)).to.deep.equal(['مسوول', 'الشبكه', 'تثبيت']);
  });
});
