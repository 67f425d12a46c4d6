import { expect } from 'chai';
import { snippetOf } from '../../src/conversations/conversations.js';

describe('search snippets', () => {
  const words = Array.from({ length: 40 }, (_, index) => `w${index}`);

  it('shows the text around the first matching word, with … where it was cut', () => {
    const text = [...words.slice(0, 20), 'Zebra', ...words.slice(20)].join(' ');
    expect(snippetOf(text, 'zebra')).to.equal(
      `… ${words.slice(12, 20).join(' ')} Zebra ${words.slice(20, 28).join(' ')} …`,
    );
  });

  it('matches as the search does: normalised Arabic, the last term as a prefix', () => {
    expect(snippetOf('لقاء مع المَسْؤُولِ غداً', 'المسوول')).to.equal('لقاء مع المَسْؤُولِ غداً');
    expect(snippetOf(`${words.join(' ')} إِنشاء`, 'انش')).to.match(/^… .* إِنشاء$/);
  });

  it('shows the beginning when no single word matches (a phrase across punctuation)', () => {
    expect(snippetOf(words.join(' '), 'nothing')).to.equal(`${words.slice(0, 9).join(' ')} …`);
  });
});
