import { expect } from 'chai';
import { WordTable } from '../../src/text/wordTable.js';

describe('WordTable', () => {
  it('gives a word one id wherever it is met, and new words the next ids', () => {
    const table = new WordTable();
    const text = 'river bank, river banks; riverbank';
    expect(table.idOf(text, 0, 5)).to.equal(0); // river
    expect(table.idOf(text, 6, 10)).to.equal(1); // bank
    expect(table.idOf(text, 12, 17)).to.equal(0); // river again
    expect(table.idOf(text, 18, 23)).to.equal(2); // banks: "bank" is only its start
    expect(table.idOf(text, 25, 34)).to.equal(3); // riverbank
    expect(table.idOf('a bank', 2, 6)).to.equal(1);
    expect([0, 1, 2, 3].map((id) => table.word(id))).to.deep.equal(['river', 'bank', 'banks', 'riverbank']);
    expect(table.size).to.equal(4);
  });

  it('keeps every word apart as it grows (Arabic, astral characters and prefixes included)', () => {
    const table = new WordTable();
    const words = Array.from({ length: 20_000 }, (_, i) => {
      const base = ['مكتبة', 'w', '𝒳', 'ab'][i % 4]!;
      return `${base}${i.toString(36)}`;
    });
    const text = words.join(' ');
    const spans: Array<[number, number]> = [];
    let at = 0;
    for (const word of words) {
      spans.push([at, at + word.length]);
      at += word.length + 1;
    }
    spans.forEach(([start, end], i) => expect(table.idOf(text, start, end)).to.equal(i));
    spans.forEach(([start, end], i) => expect(table.idOf(text, start, end)).to.equal(i));
    words.forEach((word, i) => expect(table.word(i)).to.equal(word));
    expect(table.size).to.equal(words.length);
  });
});
