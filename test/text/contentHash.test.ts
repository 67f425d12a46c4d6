import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { contentHashOf } from '../../src/text/contentHash.js';

/** The digest as it was first defined, on the whole text at once: what stored documents are keyed by. */
const whole = (text: string): string =>
  createHash('sha256').update(text.normalize('NFC').replace(/\s+/g, ' ').trim()).digest('hex');

/** Seeded pieces: words, Arabic with marks, decomposed accents, every kind of whitespace. */
function mixedText(seed: number, length: number): string {
  const pieces = [
    'river',
    'gauge',
    'ال\u0643\u0650تاب',
    'e\u0301te\u0301',
    'A\u030a',
    '\u1100\u1161',
    'x',
    ' ',
    '  ',
    '\n',
    '\r\n',
    '\t',
    '\u00a0',
    '\u2000',
    '\u3000',
    '\u0301',
    ' \u0301',
  ];
  let state = seed;
  let text = '';
  while (text.length < length) {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
    text += pieces[state % pieces.length];
  }
  return text;
}

describe('content hash', () => {
  it('is the whole-text digest for short texts, blank ones and ones with whitespace at the ends', () => {
    for (const text of ['', ' ', '\n\n', 'one', '  one  two \n', 'e\u0301', '\u2000a\u2001b\u2000']) {
      expect(contentHashOf(text), JSON.stringify(text)).to.equal(whole(text));
    }
  });

  it('is the whole-text digest for texts of many slices, cut wherever their whitespace falls', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const text = mixedText(seed, 300_000 + seed * 7_919);
      expect(contentHashOf(text), `seed ${seed}`).to.equal(whole(text));
    }
    const runs = `${'a'.repeat(70_000)}${' '.repeat(140_000)}b${'\n'.repeat(65_536)}`;
    expect(contentHashOf(runs)).to.equal(whole(runs));
    const noWhitespace = 'é'.normalize('NFD').repeat(80_000);
    expect(contentHashOf(noWhitespace)).to.equal(whole(noWhitespace));
  });

  it('finds re-wrapped text the same content, and other words not', () => {
    expect(contentHashOf('The river\nrises  at dawn.')).to.equal(
      contentHashOf(' The river rises at\tdawn.\n'),
    );
    expect(contentHashOf('The river rises at dawn.')).not.to.equal(contentHashOf('The river rises at dusk.'));
  });
});
