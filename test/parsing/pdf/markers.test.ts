import { expect } from 'chai';
import { readListStart } from '../../../src/parsing/pdf/lists.js';
import { isPageNumberLine, marginKey } from '../../../src/parsing/pdf/profile.js';

describe('PDF line markers', () => {
  it('reads bullets and enumerations at the start of a line, without the marker', () => {
    expect(readListStart('• Sensor readings')).to.deep.equal({ ordered: false, text: 'Sensor readings' });
    expect(readListStart('◦ nested point')).to.deep.equal({ ordered: false, text: 'nested point' });
    expect(readListStart('▪ square bullet')).to.deep.equal({ ordered: false, text: 'square bullet' });
    expect(readListStart('– dash item')).to.deep.equal({ ordered: false, text: 'dash item' });
    expect(readListStart('- hyphen item')).to.deep.equal({ ordered: false, text: 'hyphen item' });
    expect(readListStart('\uF0B7 Symbol-font bullet')).to.deep.equal({
      ordered: false,
      text: 'Symbol-font bullet',
    });
    expect(readListStart('1. First step')).to.deep.equal({ ordered: true, text: 'First step' });
    expect(readListStart('12) Twelfth')).to.deep.equal({ ordered: true, text: 'Twelfth' });
    expect(readListStart('(3) Third')).to.deep.equal({ ordered: true, text: 'Third' });
    expect(readListStart('b) second option')).to.deep.equal({ ordered: true, text: 'second option' });
    expect(readListStart('iv. fourth')).to.deep.equal({ ordered: true, text: 'fourth' });
  });

  it('does not take ordinary sentences, numbers or decimals for list items', () => {
    expect(readListStart('The checks were run in this order:')).to.equal(null);
    expect(readListStart('1.5 million readings were stored')).to.equal(null);
    expect(readListStart('2024 was a dry year')).to.equal(null);
    expect(readListStart('e.g. a station')).to.equal(null);
    expect(readListStart('- 42')).to.equal(null);
  });

  it('recognises bare page numbers and keys repeated margin lines by their words', () => {
    for (const text of ['7', '- 7 -', 'Page 7', 'page 7 of 12', '7 / 12', 'xii', 'iv']) {
      expect(isPageNumberLine(text), text).to.equal(true);
    }
    for (const text of ['civil', 'Chapter 7', '7 stations', 'mix'])
      expect(isPageNumberLine(text), text).to.equal(false);
    expect(marginKey('Page 3 of 54')).to.equal(marginKey('Page 12 of 54'));
    expect(marginKey('Annual  Review')).to.equal('annual review');
  });
});
