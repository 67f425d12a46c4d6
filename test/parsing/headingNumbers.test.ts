import { expect } from 'chai';
import { levelsFromSectionNumbers, sectionNumberDepth } from '../../src/parsing/headingNumbers.js';
import type { Block } from '../../src/parsing/model.js';

const heading = (level: number, text: string): Block => ({ type: 'heading', level, text, page: 1 });
const levels = (blocks: Block[]): Array<[number, string]> =>
  blocks.flatMap((block) =>
    block.type === 'heading' ? [[block.level, block.text] as [number, string]] : [],
  );

describe('heading levels from section numbers', () => {
  it('reads the depth of chapter, dotted and lettered numbers', () => {
    expect(sectionNumberDepth('Chapter 7. Checking the package')).to.equal(1);
    expect(sectionNumberDepth('Appendix A. Appendix')).to.equal(1);
    expect(sectionNumberDepth('7.1. Suspicious changes')).to.equal(2);
    expect(sectionNumberDepth('3.1.2.1 Escape Character')).to.equal(4);
    expect(sectionNumberDepth('A.2. Copyright history')).to.equal(2);
    expect(sectionNumberDepth('6 Patterns')).to.equal('loneInteger');
  });

  it('takes no version, date, count or unnumbered title for a section number', () => {
    for (const text of [
      '1.2.3 (2024-01-01)',
      '2024-01-01 release',
      '3 ways to win',
      'Usage',
      'v1.2 Notes',
      'A word',
    ]) {
      expect(sectionNumberDepth(text), text).to.equal(null);
    }
  });

  it('sets numbered levels and keeps the distance of unnumbered headings to the one before', () => {
    const blocks = [
      heading(3, '5.2 Arguments to macros'),
      heading(4, 'Examples'),
      heading(3, '5.3 Special arguments'),
    ];
    levelsFromSectionNumbers(blocks);
    expect(levels(blocks)).to.deep.equal([
      [2, '5.2 Arguments to macros'],
      [3, 'Examples'],
      [2, '5.3 Special arguments'],
    ]);
  });

  it('counts a lone number only on a top heading, and leaves unnumbered documents alone', () => {
    const list = [heading(1, 'Top picks'), heading(3, '1 Brave New World'), heading(3, '2 Dune')];
    levelsFromSectionNumbers(list);
    expect(levels(list).map(([level]) => level)).to.deep.equal([1, 3, 3]);
    const plain = [heading(2, 'Intro'), heading(3, 'Details')];
    levelsFromSectionNumbers(plain);
    expect(levels(plain).map(([level]) => level)).to.deep.equal([2, 3]);
  });

  it('leaves unnumbered headings as they are when asked (PDF levels come from font sizes)', () => {
    const blocks = [heading(1, '3.3 Figure size'), heading(1, 'Labels and paths')];
    levelsFromSectionNumbers(blocks, { keepUnnumbered: true });
    expect(levels(blocks).map(([level]) => level)).to.deep.equal([2, 1]);
  });
});
