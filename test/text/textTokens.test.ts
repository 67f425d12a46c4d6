import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { foldCase, foldedWords } from '../../src/text/textTokens.js';
import { seeded } from '../support/seededRandom.js';

/** What `foldedWords` must agree with: a split on runs of anything but letters, marks and digits. */
const bySplit = (text: string): string[] =>
  text.split(/[^\p{L}\p{M}\p{N}]+/u).filter((token) => token.length > 0);

/** Characters from every class the scan treats apart: ASCII, Latin, Arabic, marks, CJK, astral, lone surrogates. */
const ALPHABET = [
  ..."aZ09 _-.,\t\n'’",
  'é',
  'ß',
  'ı',
  'ا',
  'ة',
  '\u064B',
  '\u0301',
  '٣',
  '中',
  '\u00A0',
  '\u200B',
  '\uFEFF',
  '𝐀',
  '😀',
  '𐍈',
  '\uD800',
  '\uDC00',
  '\uDBFF',
];

describe('text tokens', () => {
  it('splits words exactly as the Unicode property split does, on random text of every script', () => {
    const random = seeded(20261127);
    for (let trial = 0; trial < 2_000; trial += 1) {
      const length = Math.floor(random() * 40);
      let text = '';
      for (let i = 0; i < length; i += 1) text += ALPHABET[Math.floor(random() * ALPHABET.length)];
      expect(foldedWords(text), JSON.stringify(text)).to.deep.equal(bySplit(text));
    }
  });

  it('splits the retrieval corpus (English and Arabic pages) exactly as the split does', () => {
    const dir = join(import.meta.dirname, '..', '..', 'eval', 'retrieval', 'corpus');
    for (const language of ['en', 'ar']) {
      for (const name of readdirSync(join(dir, language)).slice(0, 10)) {
        const text = foldCase(readFileSync(join(dir, language, name), 'utf8'));
        expect(foldedWords(text)).to.deep.equal(bySplit(text));
      }
    }
  });

  it('folds case and accents, with ASCII text only lower-cased', () => {
    expect(foldCase('Hello WORLD 42')).to.equal('hello world 42');
    expect(foldCase('Ĉafé ΆΘΗΝΑ ﬁle')).to.equal('cafe αθηνα file');
  });
});
