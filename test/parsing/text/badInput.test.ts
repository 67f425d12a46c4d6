import { expect } from 'chai';
import { textParsers, type TextParser } from '../../../src/parsing/text/index.js';
import { bytesOf, expectCode, textContext } from './support.js';

/** A small valid document per parser, to show that only the limit makes it fail. */
const SAMPLES: Record<keyof typeof textParsers, string> = {
  '.txt': 'Title\n=====\n\nSome text here.\n',
  '.md': '# Title\n\nSome text here.\n',
  '.markdown': '# Title\n\nSome text here.\n',
  '.rst': 'Title\n=====\n\nSome text here.\n',
  '.html': '<html><body><h1>Title</h1><p>Some text here.</p></body></html>',
  '.htm': '<html><body><h1>Title</h1><p>Some text here.</p></body></html>',
  '.json': '{"title": "Title", "text": "Some text here."}',
  '.csv': 'name,text\nTitle,Some text here.\n',
};

const parsers = Object.entries(textParsers) as Array<[keyof typeof textParsers, TextParser]>;

describe('text parsers on bad input', () => {
  for (const [ext, parse] of parsers) {
    describe(ext, () => {
      const name = `doc${ext}`;

      it('parses the small sample (so the failures below are the limits, not the sample)', async () => {
        const document = await parse(bytesOf(SAMPLES[ext]), textContext(name));
        expect(document.format).to.equal(ext);
        expect(JSON.stringify(document.blocks)).to.contain('Some text here.');
      });

      it('reports zero bytes and whitespace-only text as empty', async () => {
        await expectCode(parse(new Uint8Array(0), textContext(name)), 'empty_document');
        await expectCode(parse(bytesOf(' \n\t\r\n '), textContext(name)), 'empty_document');
      });

      it('refuses input above maxInputBytes', async () => {
        const error = await expectCode(
          parse(bytesOf(SAMPLES[ext]), textContext(name, { limits: { maxInputBytes: 10 } })),
          'too_large',
        );
        expect(error.message).to.contain('maxInputBytes');
      });

      it('refuses extracted text above maxTextChars', async () => {
        const error = await expectCode(
          parse(bytesOf(SAMPLES[ext]), textContext(name, { limits: { maxTextChars: 8 } })),
          'too_large',
        );
        expect(error.message).to.contain('maxTextChars');
      });

      it('stops with aborted when the caller has gone away', async () => {
        const controller = new AbortController();
        controller.abort();
        await expectCode(
          parse(bytesOf(SAMPLES[ext]), textContext(name, { signal: controller.signal })),
          'aborted',
        );
      });

      it('never throws anything but a ParseError on invalid UTF-8 and stray control bytes', async () => {
        const garbage = new Uint8Array([
          0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0x28, 0x01, 0x02, 0x0a, 0xff, 0xfe,
          0x7b,
        ]);
        try {
          await parse(garbage, textContext(name));
        } catch (error) {
          expect(error).to.have.property('name', 'ParseError');
        }
      });
    });
  }

  it('notices an abort that arrives while a large document is being parsed', async () => {
    const sections = Array.from(
      { length: 20_000 },
      (_, i) => `## Section ${i}\n\nParagraph ${i} of the document.\n`,
    ).join('\n');
    for (const [ext, text] of [
      ['.md', sections],
      ['.txt', sections.replace(/## (Section \d+)/g, '$1\n---------').replace(/\n\n/g, '\n\n\f')],
      [
        '.html',
        `<html><body>${sections.replace(/## (.*)/g, '<h2>$1</h2>').replace(/(Paragraph .*)/g, '<p>$1</p>')}</body></html>`,
      ],
    ] as const) {
      const controller = new AbortController();
      const parsing = textParsers[ext](
        bytesOf(text),
        textContext(`big${ext}`, { signal: controller.signal }),
      );
      setImmediate(() => controller.abort());
      await expectCode(parsing, 'aborted');
    }
  });
});
