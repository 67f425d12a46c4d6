import { expect } from 'chai';
import { parseTxt } from '../../../src/parsing/text/index.js';
import {
  blocksOf,
  bytesOf,
  expectCode,
  fixture,
  headings,
  paragraphs,
  REPORT_HEADINGS,
  textContext,
} from './support.js';

describe('parseTxt', () => {
  it('reads the three pages pdftotext wrote (form feeds) with numbered headings and a PUA-bulleted list', async () => {
    const document = await parseTxt(fixture('report.txt'), textContext('report.txt'));
    expect(document.format).to.equal('.txt');
    expect(document.metadata.numPages).to.equal(3);
    expect(document.pages.map((page) => page.number)).to.deep.equal([1, 2, 3]);
    expect(headings(document)).to.deep.equal(REPORT_HEADINGS);
    const pageOf = (text: string): number | undefined =>
      document.blocks.find((block) => block.type === 'heading' && block.text === text)?.page;
    expect([pageOf('1 Introduction'), pageOf('2 Results'), pageOf('3 Conclusions')]).to.deep.equal([1, 2, 3]);
    const [list] = blocksOf(document, 'list');
    expect(list?.items).to.deep.equal(['Dissolved oxygen', 'Nitrate concentration', 'Turbidity']);
    expect(list?.page).to.equal(1);
    expect(paragraphs(document)[0]).to.equal(
      'This report summarises the water quality measurements taken at twelve river stations during 2023.\n' +
        'Samples were collected monthly and analysed in the regional laboratory.',
    );
    expect(document.metadata.title).to.equal('1 Introduction');
    expect(document.metadata.language).to.equal(null);
  });

  it('reads UTF-16 LE and BE files with a BOM: underlined headings, a bullet list, a second page', async () => {
    for (const name of ['notes-utf16le.txt', 'notes-utf16be.txt']) {
      const document = await parseTxt(fixture(name), textContext(name));
      expect(headings(document)).to.deep.equal([
        [1, 'Meeting notes — Riverwatch committee'],
        [2, 'Actions'],
        [2, 'Next meeting'],
      ]);
      expect(document.metadata.title).to.equal('Meeting notes — Riverwatch committee');
      expect(document.metadata.numPages).to.equal(2);
      expect(paragraphs(document)[0]).to.equal('Date: 5 March 2024\nPresent: Amira, Jonas, Zoë, René');
      expect(blocksOf(document, 'list')[0]?.items).to.deep.equal([
        'Order 50 new erosion pins (Jonas)',
        'Book the café for the volunteer day (Zoë)',
        'Renew the insurance',
      ]);
      expect(blocksOf(document, 'paragraph').at(-1)?.page).to.equal(2);
      expect(document.metadata.extra.encoding).to.equal(name.includes('le') ? 'utf-16le' : 'utf-16be');
    }
  });

  it('reads Arabic in UTF-8 and in windows-1256 to the same text', async () => {
    const utf8 = await parseTxt(fixture('arabic.txt'), textContext('arabic.txt'));
    const legacy = await parseTxt(fixture('arabic-1256.txt'), textContext('arabic-1256.txt'));
    expect(legacy.metadata.extra.encoding).to.equal('windows-1256');
    expect(legacy.blocks).to.deep.equal(utf8.blocks);
    expect(headings(utf8)).to.deep.equal([
      [1, 'تقرير جودة مياه النهر'],
      [1, '1 مقدمة'],
      [1, '2 النتائج'],
    ]);
    expect(blocksOf(utf8, 'list')[0]?.items).to.deep.equal(['الأكسجين المذاب', 'تركيز النترات', 'العكارة']);
    expect(paragraphs(utf8)[0]).to.contain('جُمعت العينات شهريًا');
  });

  it('falls back to windows-1252 for Latin text that is not UTF-8, and never throws on odd bytes', async () => {
    const latin1 = new Uint8Array([
      ...Buffer.from('Caf'),
      0xe9,
      ...Buffer.from(' au lait, cr'),
      0xe8,
      ...Buffer.from('me br'),
      0xfb,
      ...Buffer.from('l'),
      0xe9,
      0x0a,
    ]);
    const document = await parseTxt(latin1, textContext('menu.txt'));
    expect(paragraphs(document)).to.deep.equal(['Café au lait, crème brûlé']);
    const truncated = new Uint8Array([...Buffer.from('naïve text'), 0xe2, 0x80]);
    expect(paragraphs(await parseTxt(truncated, textContext('cut.txt')))[0]).to.match(/^naïve text/);
    const withNuls = bytesOf('A\u0000B line\n');
    expect(paragraphs(await parseTxt(withNuls, textContext('nul.txt')))).to.deep.equal(['AB line']);
  });

  it('separates prose from list items, keeps nesting as indentation and numbered lists as ordered', async () => {
    const text = [
      'Packing list:',
      '- boots',
      '- ruler',
      '  - metric',
      '- camera',
      '',
      '1) Walk to the post',
      '2) Take the photo',
      '   at the marked height',
      '',
      'A. Smith wrote the first survey in 1998.',
    ].join('\n');
    const document = await parseTxt(bytesOf(text), textContext('packing.txt'));
    expect(document.blocks.map((block) => block.type)).to.deep.equal([
      'paragraph',
      'list',
      'list',
      'paragraph',
    ]);
    const [bullets, steps] = blocksOf(document, 'list');
    expect(bullets).to.include({ ordered: false });
    expect(bullets?.items).to.deep.equal(['boots', 'ruler', '  metric', 'camera']);
    expect(steps).to.include({ ordered: true });
    expect(steps?.items).to.deep.equal(['Walk to the post', 'Take the photo at the marked height']);
    expect(paragraphs(document)).to.deep.equal(['Packing list:', 'A. Smith wrote the first survey in 1998.']);
    expect(document.metadata.title).to.equal('packing');
  });

  it('does not take a numbered list separated by blank lines for chapter headings', async () => {
    const text = '1. Buy pins\n\n2. Buy a ruler\n\n3. Print the forms\n';
    const document = await parseTxt(bytesOf(text), textContext('todo.txt'));
    expect(headings(document)).to.deep.equal([]);
    expect(blocksOf(document, 'list').map((list) => [list.ordered, list.items])).to.deep.equal([
      [true, ['Buy pins', 'Buy a ruler', 'Print the forms']],
    ]);
  });

  it('refuses more form-feed pages than maxPages', async () => {
    const text = Array.from({ length: 50 }, (_, i) => `Page ${i + 1}`).join('\f');
    const document = await parseTxt(bytesOf(text), textContext('pages.txt', { limits: { maxPages: 50 } }));
    expect(document.metadata.numPages).to.equal(50);
    await expectCode(
      parseTxt(bytesOf(`${text}\fPage 51`), textContext('pages.txt', { limits: { maxPages: 50 } })),
      'too_large',
    );
  });

  it('keeps HTML inside a .txt as text (the name decides the parser)', async () => {
    const document = await parseTxt(fixture('report.html').subarray(0, 120), textContext('page.txt'));
    expect(paragraphs(document)[0]).to.match(/^<!DOCTYPE html>\n<html>/);
  });
});
