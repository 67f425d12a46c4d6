import { expect } from 'chai';
import { excerptOf } from '../../src/text/excerpt.js';

const filler = (words: number, word = 'lorem'): string => Array.from({ length: words }, () => word).join(' ');

describe('excerptOf', () => {
  it('gives a short text whole, trimmed, with its offsets', () => {
    expect(excerptOf('  Koa requires node v18.0.0 or higher. ', 'node version')).to.deep.equal({
      text: 'Koa requires node v18.0.0 or higher.',
      start: 2,
      end: 38,
      focus: 15,
    });
  });

  it('cuts about 200 characters around the query terms, at word boundaries, with offsets into the text', () => {
    const text = `${filler(60)} Koa requires node v18.0.0 or higher for async function support. ${filler(80)}`;
    const excerpt = excerptOf(text, 'What Node.js version does Koa require?');
    expect(excerpt.text).to.include('Koa requires node v18.0.0 or higher');
    expect(excerpt.text.length).to.be.within(150, 200);
    expect(text.slice(excerpt.start, excerpt.end)).to.equal(excerpt.text);
    expect(excerpt.text).to.match(/^\S/).and.to.match(/\S$/);
    expect(text.charAt(excerpt.start - 1)).to.equal(' ');
  });

  it('prefers the passage holding more of the distinct terms over one repeating a single term', () => {
    const text = `${filler(20)} install install install install. ${filler(50)} To install pino run npm install pino. ${filler(50)}`;
    expect(excerptOf(text, 'install pino').text).to.include('To install pino run npm install pino.');
  });

  it('matches Arabic across letter variants and words extending a term', () => {
    const text = `${filler(50)} يجب على المسوول تثبيت الحزمة قبل التشغيل. ${filler(50)}`;
    expect(excerptOf(text, 'مسؤول التثبيت').text).to.include('المسوول تثبيت الحزمة');
    const english = `${filler(50)} Configuring the logger takes one line. ${filler(50)}`;
    expect(excerptOf(english, 'configur').text).to.include('Configuring the logger');
  });

  it('opens the text when no term occurs in it', () => {
    const text = `First words here. ${filler(100)}`;
    const excerpt = excerptOf(text, 'absent');
    expect(excerpt.start).to.equal(0);
    expect(excerpt.text.startsWith('First words here.')).to.equal(true);
    expect(excerpt.text.length).to.be.at.most(200);
  });
});
