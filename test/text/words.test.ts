import { expect } from 'chai';
import { splitSentences } from '../../src/text/sentences.js';
import { countWords, splitByWords, words } from '../../src/text/words.js';
import { randomTexts, realTexts } from './textSamples.js';

describe('countWords', () => {
  it('counts English words with hyphens, apostrophes and numbers as single words', () => {
    expect(
      countWords("The well-known plant's output rose 3.5% to 41,200 m³ in Q3 — COVID-19 aside."),
    ).to.equal(13);
    expect(words('It costs $1,250.50 (3rd time)')).to.deep.equal(['It', 'costs', '1,250.50', '3rd', 'time']);
  });

  it('counts Arabic words, with or without harakat and tatweel', () => {
    expect(countWords('عالجت المحطة أكثر من أربعين مليون متر مكعب.')).to.equal(8);
    expect(countWords('كَتَبَ الطَّالِبُ الدَّرْسَ')).to.equal(3);
    expect(countWords('المـــدرسة، والبيت؟ نعم!')).to.equal(3);
  });

  it('does not count Markdown punctuation', () => {
    expect(countWords('## Results\n\n| A | B |\n| --- | --- |\n| 1 | two |')).to.equal(5);
    expect(countWords('')).to.equal(0);
    expect(countWords(' \n\t ')).to.equal(0);
  });
});

describe('splitByWords', () => {
  it('cuts between words into slices whose counts add up', () => {
    const text = 'one two, three (four) five—six seven. eight';
    const slices = splitByWords(text, 3);
    expect(slices).to.deep.equal(['one two, three', '(four) five—six', 'seven. eight']);
    expect(slices.map(countWords)).to.deep.equal([3, 3, 2]);
  });
});

describe('splitSentences', () => {
  it('splits English sentences but not at abbreviations, initials or decimals', () => {
    expect(
      splitSentences(
        'Dr. Smith measured 0.3 NTU, e.g. at the outlet. J. R. Jones agreed! Was it enough? Yes.',
      ),
    ).to.deep.equal([
      'Dr. Smith measured 0.3 NTU, e.g. at the outlet.',
      'J. R. Jones agreed!',
      'Was it enough?',
      'Yes.',
    ]);
  });

  it('splits Arabic sentences at . ؟ ! and ۔', () => {
    expect(splitSentences('انخفضت الشكاوى. هل يمكن خفض الفاقد؟ نعم! انتهى التقرير۔ شكرا')).to.deep.equal([
      'انخفضت الشكاوى.',
      'هل يمكن خفض الفاقد؟',
      'نعم!',
      'انتهى التقرير۔',
      'شكرا',
    ]);
  });

  it('keeps closing quotes with their sentence', () => {
    expect(splitSentences('He said "it works." Then he left.')).to.deep.equal([
      'He said "it works."',
      'Then he left.',
    ]);
  });
});

describe('the word scanner', () => {
  // The definition of a word (words.ts); the scanner must find exactly its matches, a match in a
  // script written without spaces divided into the word-like segments Intl.Segmenter finds in it.
  const WORD = /\p{L}[\p{L}\p{M}\p{N}'’-]*|\p{N}[\p{N}\p{L}\p{M}]*(?:[.,:/]\p{N}+)*/gu;
  const SPACELESS =
    /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
  const segmenter = new Intl.Segmenter('en', { granularity: 'word' });
  const check = (texts: string[]): void => {
    for (const text of texts) {
      const expected = (text.match(WORD) ?? []).flatMap((match) =>
        SPACELESS.test(match)
          ? [...segmenter.segment(match)].filter((part) => part.isWordLike).map((part) => part.segment)
          : [match],
      );
      expect(words(text)).to.deep.equal(expected);
      expect(countWords(text)).to.equal(expected.length);
    }
  };

  it('finds the words of the regex definition in real English and Arabic text and Markdown', () => {
    check(realTexts());
  });

  it('finds the words of the regex definition in random Unicode text', () => {
    check(randomTexts(1, 3000, 60));
  });
});
