import { expect } from 'chai';
import MarkdownIt from 'markdown-it';
import { markdownParser } from '../../../src/parsing/text/markdownParser.js';
import { realTexts } from '../../text/textSamples.js';

const OPTIONS = { html: true, linkify: false, typographer: false, maxNesting: 110 };

const EDGES = [
  '# Title\n\nSome *emphasis*, **strong**, ~~gone~~, `code`, [link](http://x.org "t") and ![img](a.png).',
  '- one\n  - nested *a*\n    1. deep\n- two\n\n> quote with [ref][r]\n\n[r]: http://example.com',
  '| a | b |\n|---|:-:|\n| `x` | &amp; &#65; |\n\n```js\nconst x = 1;\n```\n\n    indented',
  '<div align="center"><img src="logo.png" alt="Logo"></div>\n\nText <br/> after *unclosed and _mixed* marks_.',
  'Setext\n======\n\n***\n\nLine  \nbreak\\\nand <span>inline</span> html.',
];

describe('markdownParser', () => {
  it('gives the tokens of stock markdown-it on real READMEs and Markdown edge cases', function () {
    // 400 real documents through both parsers: seconds alone, 13 s in a CI run, over 20 s on a
    // loaded machine. The limit is a guard against a hang, not a speed check.
    this.timeout(180_000);
    const stock = new MarkdownIt('default', OPTIONS);
    const ours = markdownParser(50);
    const samples = [...EDGES, ...realTexts().slice(-400)];
    for (const sample of samples) {
      expect(JSON.stringify(ours.parse(sample, {}))).to.equal(JSON.stringify(stock.parse(sample, {})));
    }
  });

  it("builds tokens and inline states with markdown-it's fields, in its order, and its methods", () => {
    const stock = new MarkdownIt('default', OPTIONS);
    const ours = markdownParser(50);
    const StockToken = new stock.core.State('', stock, {}).Token;
    const [paragraph, inline] = ours.parse('Text *with* marks.', {});
    const [stockParagraph] = stock.parse('Text *with* marks.', {});
    expect(Object.keys(paragraph ?? {})).to.deep.equal(Object.keys(stockParagraph ?? {}));
    expect(inline?.children?.[1]).to.be.instanceOf(StockToken);
    inline?.children?.[1]?.attrSet('class', 'x');
    expect(inline?.children?.[1]?.attrGet('class')).to.equal('x');

    const state = new ours.inline.State('a', ours, {}, []);
    const stockState = new stock.inline.State('a', stock, {}, []);
    expect(Object.keys(state)).to.deep.equal(Object.keys(stockState));
    for (const key of Object.keys(stockState) as Array<keyof typeof stockState>) {
      if (key !== 'md' && key !== 'Token') expect(state[key], key).to.deep.equal(stockState[key]);
    }
    expect(state.scanDelims).to.equal(stockState.scanDelims);
  });
});
