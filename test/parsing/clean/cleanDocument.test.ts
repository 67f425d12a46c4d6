import { expect } from 'chai';
import { cleanBlocks, cleanDocument, type CleanOptions } from '../../../src/parsing/clean/cleanDocument.js';
import type { Block } from '../../../src/parsing/model.js';
import {
  ARABIC_SENTENCES,
  heading,
  imageBlock,
  list,
  makeDocument,
  paragraph,
  prose,
  tableBlock,
} from '../chunk/sampleDocuments.js';

const ALL: CleanOptions = { removeUrls: true, normalizeArabic: true };
const NONE: CleanOptions = { removeUrls: false, normalizeArabic: false };

function texts(blocks: Block[]): string[] {
  return blocks.map((block) => {
    if (block.type === 'heading' || block.type === 'paragraph') return block.text;
    if (block.type === 'list') return block.items.join(' / ');
    if (block.type === 'table') return block.table.cells.map((row) => row.join('|')).join('\n');
    return `image ${block.image.index}`;
  });
}

describe('cleanDocument', () => {
  it('joins words hyphenated at line ends and the lines of a paragraph, keeping real hyphens', () => {
    const [text] = texts(
      cleanBlocks(
        [
          paragraph(
            'The infor-\nmation in this well-known re-\nport is up to\n   date.\nThe self-\nassessment of\tthe  COVID-\n19 plan was done by Jean-\nPaul.',
          ),
        ],
        NONE,
      ),
    );
    expect(text).to.equal(
      'The information in this well-known report is up to date. The self-assessment of the COVID-19 plan was done by Jean-Paul.',
    );
  });

  it('lets the document decide a line-end hyphen: a compound used elsewhere keeps its hyphen', () => {
    const blocks = cleanBlocks(
      [
        paragraph('Water-\nborne diseases are rare. Re-\nsampling took a day.'),
        paragraph('Most water-borne outbreaks start in storage. Resampling is routine.'),
      ],
      NONE,
    );
    expect(texts(blocks)[0]).to.equal('Water-borne diseases are rare. Resampling took a day.');
  });

  it('collapses white space, removes invisible junk and drops blocks left empty', () => {
    const blocks = cleanBlocks(
      [
        heading('  Results \u200F\u202B2024\u202C ', 2),
        paragraph(' \n \t '),
        paragraph('\uFEFFFirst\u00A0\u00A0line\u0007 of text.'),
        list(['  one ', '', ' \n ', 'two\nlines']),
        list(['', '  ']),
        heading('\u200E', 3),
      ],
      NONE,
    );
    expect(blocks.map((block) => block.type)).to.deep.equal(['heading', 'paragraph', 'list']);
    expect(texts(blocks)).to.deep.equal(['Results 2024', 'First line of text.', 'one / two lines']);
  });

  it('keeps preformatted text line by line with its indentation', () => {
    const [text] = texts(
      cleanBlocks(
        [
          {
            type: 'paragraph',
            text: '\n\nfunction f() {  \n    return 1;\n}\n\n',
            page: 1,
            preformatted: true,
          },
        ],
        ALL,
      ),
    );
    expect(text).to.equal('function f() {\n    return 1;\n}');
  });

  it('removes URLs but keeps link text, e-mail addresses and sentence punctuation', () => {
    const [text] = texts(
      cleanBlocks(
        [
          paragraph(
            'See https://example.org/report.pdf, the [annual report](https://example.org/a?b=1) and (www.example.org/faq). ' +
              'Write to info@www.example.org or visit <https://example.org> today: http://x.io/a_(b) ends it.',
          ),
        ],
        ALL,
      ),
    );
    expect(text).to.equal(
      'See, the annual report and. Write to info@www.example.org or visit today: ends it.',
    );
  });

  it('keeps URLs when remove_urls is off', () => {
    const [text] = texts(cleanBlocks([paragraph('See https://example.org/report.pdf for details.')], NONE));
    expect(text).to.equal('See https://example.org/report.pdf for details.');
  });

  it('removes tatweel and resolves presentation forms only with normalize_arabic, keeping hamza and ta marbuta', () => {
    const source = 'المـــــدرسة ﺍﻟﻜﺒﻴﺮﺓ في المدينة الجميلة';
    expect(texts(cleanBlocks([paragraph(source)], ALL))[0]).to.equal('المدرسة الكبيرة في المدينة الجميلة');
    expect(texts(cleanBlocks([paragraph(source)], NONE))[0]).to.equal(source);
    const kept = 'أسئلة إضافية عن مستشفى المدينة؟';
    expect(texts(cleanBlocks([paragraph(kept)], ALL))[0]).to.equal(kept);
  });

  it('cleans table cells and captions, drops empty tables and renumbers the rest', () => {
    const { blocks } = cleanDocument(
      makeDocument([
        tableBlock(
          [
            ['', ' '],
            ['\n', ''],
          ],
          1,
          0,
        ),
        tableBlock(
          [
            ['Zone ', ' Chlorine\nmg/l'],
            ['North', ' 0.32 '],
          ],
          2,
          1,
          '  Table 2:\nresults ',
        ),
      ]),
      ALL,
    );
    expect(blocks).to.have.length(1);
    const block = blocks[0];
    if (block?.type !== 'table') throw new Error('expected a table');
    expect(block.table.index).to.equal(0);
    // cleanBlocks alone (a page of incremental parsing) keeps the parser's indexes.
    const page = cleanBlocks([tableBlock([['a', 'b']], 3, 7)], ALL)[0];
    expect(page?.type === 'table' && page.table.index).to.equal(7);
    expect(block.table.caption).to.equal('Table 2: results');
    expect(block.table.cells).to.deep.equal([
      ['Zone', 'Chlorine mg/l'],
      ['North', '0.32'],
    ]);
  });

  it('cleans a table row of 200,000 cells (a one-line CSV) without overflowing the stack', () => {
    const row = Array.from({ length: 200_000 }, (_, i) => ` v${i} `);
    const { blocks } = cleanDocument(makeDocument([tableBlock([row], 1, 0)]), NONE);
    const block = blocks[0];
    if (block?.type !== 'table') throw new Error('expected a table');
    expect(block.table.cells[0]).to.have.length(200_000);
    expect(block.table.cells[0]?.[199_999]).to.equal('v199999');
  });

  it('keeps images as they are and fills the document language from most of its words', () => {
    const document = makeDocument([
      heading('Report', 1),
      paragraph(prose(60, 2)),
      imageBlock('A chart.', 1),
      paragraph(prose(300, 3, ARABIC_SENTENCES)),
    ]);
    const cleaned = cleanDocument(document, ALL);
    expect(cleaned.blocks[2]).to.equal(document.blocks[2]);
    expect(cleaned.metadata.language).to.equal('ar');
    expect(document.metadata.language).to.equal(null);
  });

  it('does not overwrite a language the parser already set, nor mutate its input', () => {
    const document = makeDocument([paragraph('Some  text\nhere.')], { language: 'en' });
    const before = JSON.stringify(document);
    const cleaned = cleanDocument(document, ALL);
    expect(cleaned.metadata.language).to.equal('en');
    expect(JSON.stringify(document)).to.equal(before);
  });

  it('cleans the title and author', () => {
    const document = makeDocument([paragraph('Body text of the report.')], { title: ' Annual\n report ' });
    document.metadata.author = '  Water \u200FServices ';
    const cleaned = cleanDocument(document, ALL);
    expect(cleaned.metadata.title).to.equal('Annual report');
    expect(cleaned.metadata.author).to.equal('Water Services');
  });

  it('is idempotent', () => {
    const document = makeDocument([
      paragraph('The infor-\nmation at https://x.org is   here.'),
      paragraph('ال إله إال الله. االشتراك في اآلالت.'),
      tableBlock([
        ['A', 'B'],
        ['1', 'see www.x.org'],
      ]),
    ]);
    const once = cleanDocument(document, ALL);
    const twice = cleanDocument(once, ALL);
    expect(twice).to.deep.equal(once);
  });
});
