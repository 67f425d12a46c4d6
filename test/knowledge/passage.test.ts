import { expect } from 'chai';
import { citedFocus, sectionPathAt } from '../../src/knowledge/passage.js';

describe('where a cited passage stands', () => {
  const merged = {
    // A chunk named by its chapter that holds two small sibling sections (the chunker merges them).
    text: [
      '## 1.6. How does Debian fit with GNU?',
      'Debian works with the FSF.',
      '```sh',
      '# not a heading: a comment in code',
      '```',
      '## 1.7. How does one pronounce Debian?',
      "It is pronounced Deb'-ee-en.",
      '### 1.7.1. Where does the name come from?',
      'From Debra and Ian.',
    ].join('\n'),
    sectionPath: ['Chapter 1. Definitions'],
    headingLevel: 1,
  };

  it('extends the chunk’s path by the headings inside it that enclose the offset', () => {
    const at = (words: string): string[] => sectionPathAt(merged, merged.text.indexOf(words));
    expect(at('works with')).to.deep.equal(['Chapter 1. Definitions', '1.6. How does Debian fit with GNU?']);
    expect(at('pronounced')).to.deep.equal(['Chapter 1. Definitions', '1.7. How does one pronounce Debian?']);
    expect(at('Debra')).to.deep.equal([
      'Chapter 1. Definitions',
      '1.7. How does one pronounce Debian?',
      '1.7.1. Where does the name come from?',
    ]);
  });

  it('takes a heading line whole when the offset falls inside it, and ignores code comments', () => {
    expect(sectionPathAt(merged, merged.text.indexOf('pronounce Debian?'))).to.deep.equal([
      'Chapter 1. Definitions',
      '1.7. How does one pronounce Debian?',
    ]);
    expect(sectionPathAt(merged, merged.text.indexOf('not a heading'))).to.deep.equal([
      'Chapter 1. Definitions',
      '1.6. How does Debian fit with GNU?',
    ]);
  });

  it('keeps the chunk’s own path when its own heading opens it', () => {
    const own = { text: '## Install\nRun npm install.', sectionPath: ['Guide', 'Install'], headingLevel: 2 };
    expect(sectionPathAt(own, own.text.indexOf('npm'))).to.deep.equal(['Guide', 'Install']);
  });

  it('focuses a source on the first words of the answer that cite it, else on the question', () => {
    const answer = 'Koa needs node v18.0.0 or higher [1]. Install it with npm i koa [2] [1].';
    expect(citedFocus(answer, 0, 'q')).to.equal('Koa needs node v18.0.0 or higher');
    expect(citedFocus(answer, 1, 'q')).to.equal('Install it with npm i koa');
    // The local answerer's form: each quoted sentence followed by its mark.
    expect(citedFocus('It is v18. [1] Run npm i. [2]', 1, 'q')).to.equal('Run npm i.');
    expect(citedFocus(answer, 2, 'What does Koa need?')).to.equal('What does Koa need?');
  });
});
