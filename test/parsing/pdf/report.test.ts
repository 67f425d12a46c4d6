import { expect } from 'chai';
import sharp from 'sharp';
import type { Block, ParsedDocument } from '../../../src/parsing/model.js';
import { images, tables } from '../../../src/parsing/model.js';
import { parsePdf } from '../../../src/parsing/pdf/index.js';
import { fixture, pdfContext } from './pdfContext.js';

const headings = (doc: ParsedDocument): Array<[string, number, number]> =>
  doc.blocks.flatMap((block) => (block.type === 'heading' ? [[block.text, block.level, block.page]] : []));

const texts = (doc: ParsedDocument): string[] =>
  doc.blocks.flatMap((block) => (block.type === 'paragraph' || block.type === 'heading' ? [block.text] : []));

const regions = [
  ['Region', 'Stations', 'Readings'],
  ['North', '4', '52,416'],
  ['Coast', '5', '61,020'],
  ['Highlands', '3', '38,877'],
];
const months = [
  ['Month', 'Rainfall (mm)', 'Temperature (°C)'],
  ['July', '41.2', '18.4'],
  ['August', '55.8', '17.9'],
  ['September', '73.5', '14.1'],
];
const visits = [
  ['Station', 'Visit', 'Notes'],
  ['N-02', '12 July', 'Anemometer bearing replaced after the storm of early July'],
  ['C-07', '', 'Visit postponed'],
  ['H-11', '30 September', 'Sensor recalibrated'],
  ['S-09', '', ''],
];

describe('parsePdf on a LibreOffice report (report.pdf)', () => {
  let fast: ParsedDocument;
  let accurate: ParsedDocument;

  before(async () => {
    fast = await parsePdf(fixture('report.pdf'), pdfContext('report.pdf'));
    accurate = await parsePdf(
      fixture('report.pdf'),
      pdfContext('report.pdf', { options: { tableMode: 'accurate' } }),
    );
  });

  it('reads the Info dictionary: title, author, page count and the extra facts', () => {
    expect(fast.format).to.equal('.pdf');
    expect(fast.sourceFile).to.equal('report.pdf');
    expect(fast.metadata.title).to.equal('Quarterly Field Report');
    expect(fast.metadata.author).to.equal('Amira Haddad');
    expect(fast.metadata.numPages).to.equal(3);
    expect(fast.metadata.language).to.equal(null);
    expect(fast.metadata.extra).to.include({
      subject: 'Weather station network review',
      keywords: 'stations',
      creator: 'Writer',
      producer: 'LibreOffice 7.4',
      pdfVersion: '1.6',
    });
    expect(fast.metadata.extra.created).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    expect(fast.pages.map((page) => [page.number, page.hasTextLayer, page.ocr, page.note])).to.deep.equal([
      [1, true, 'not_needed', null],
      [2, true, 'not_needed', null],
      [3, true, 'not_needed', null],
    ]);
    expect(fast.warnings).to.deep.equal([]);
  });

  it('reads headings of three levels from their font sizes, and a short bold line below them', () => {
    expect(headings(fast)).to.deep.equal([
      ['Field Operations Review', 1, 1],
      ['Background', 2, 1],
      ['Data Sources', 3, 1],
      ['Results', 2, 1],
      ['Charts', 2, 1],
      // Bold at body size: ranked below the three larger heading sizes.
      ['Maintenance log', 4, 2],
      ['Conclusions', 1, 3],
    ]);
  });

  it('reads a bulleted and a numbered list without their markers', () => {
    const lists = fast.blocks.filter(
      (block): block is Extract<Block, { type: 'list' }> => block.type === 'list',
    );
    expect(lists.map((list) => [list.ordered, list.items, list.page])).to.deep.equal([
      [
        false,
        [
          'Sensor readings from twelve automatic stations',
          'Maintenance logs written by the field technicians',
          'Calibration certificates issued by the laboratory',
        ],
        1,
      ],
      [
        true,
        [
          'Remove duplicate transmissions',
          'Flag readings outside the physical range',
          'Compare neighbouring stations',
        ],
        1,
      ],
    ]);
  });

  it('keeps the lines of a paragraph joined with "\\n" and paragraphs apart', () => {
    const intro = texts(fast).find((text) => text.startsWith('This report summarises'));
    expect(intro?.split('\n')).to.have.length(4);
    expect(intro).to.include('Twelve\nstations reported continuously');
    expect(texts(fast)).to.include('Three kinds of records feed this review:');
    expect(texts(fast)).to.include('Figure 1. Readings per region in the third quarter.');
  });

  it('finds the bordered, the borderless and the wrapped-cell tables in fast mode, header first', () => {
    expect(tables(fast).map((table) => [table.index, table.pageNumber, table.hasHeader])).to.deep.equal([
      [0, 1, true],
      [1, 1, true],
      [2, 2, true],
    ]);
    // Alignment alone cannot tell a last row with one filled cell from the paragraph after a table.
    expect(tables(fast).map((table) => table.cells)).to.deep.equal([regions, months, visits.slice(0, -1)]);
    expect(texts(fast)).to.include('S-09');
  });

  it('reads the drawn cell borders in accurate mode, keeping the row with empty cells', () => {
    expect(tables(accurate).map((table) => table.cells)).to.deep.equal([regions, months, visits]);
    expect(tables(accurate).map((table) => [table.index, table.pageNumber])).to.deep.equal([
      [0, 1],
      [1, 1],
      [2, 2],
    ]);
    expect(texts(accurate)).not.to.include('S-09');
  });

  it('puts each table where it stands and never repeats its cells as paragraphs', () => {
    for (const doc of [fast, accurate]) {
      const order = doc.blocks.map((block) =>
        block.type === 'table' ? `table:${block.table.cells[0]?.[0]}` : block.type,
      );
      const before = order.indexOf('table:Region') - 1;
      expect(doc.blocks[before]).to.deep.include({
        type: 'paragraph',
        text: 'Readings per region during the quarter:',
      });
      const cellsAsText = texts(doc).filter((text) =>
        /52,416|September|Visit postponed|Highlands/.test(text),
      );
      expect(cellsAsText).to.deep.equal([]);
    }
  });

  it('extracts the chart as a PNG on page 2 and skips the 16 px icon', async () => {
    const found = images(fast);
    expect(
      found.map((image) => [image.index, image.pageNumber, image.format, image.width, image.height]),
    ).to.deep.equal([[0, 2, 'png', 480, 300]]);
    const [chart] = found;
    expect(chart?.description).to.equal('');
    const meta = await sharp(chart?.data ?? new Uint8Array()).metadata();
    expect([meta.format, meta.width, meta.height]).to.deep.equal(['png', 480, 300]);
    const blockBefore = fast.blocks[fast.blocks.findIndex((block) => block.type === 'image') + 1];
    expect(blockBefore).to.deep.include({
      type: 'paragraph',
      text: 'Figure 1. Readings per region in the third quarter.',
    });
  });

  it('drops the running header and the "Page N of M" footers', () => {
    const all = texts(fast).join('\n');
    expect(all).not.to.include('Northwind Meteorological Service');
    expect(all).not.to.match(/Page \d of 3/);
  });

  it('reads a two-column page column by column', () => {
    const page3 = fast.blocks
      .filter((block) => block.page === 3)
      .map((block) => (block.type === 'paragraph' ? block.text : ''));
    const left = page3.findIndex((text) => text.startsWith('Left column opening.'));
    const right = page3.findIndex((text) => text.startsWith('Right column opening.'));
    expect(left).to.be.greaterThan(-1);
    expect(right).to.equal(left + 1);
    expect(page3[left]).to.match(/Left column closing\.$/);
    expect(page3[left]).not.to.include('Right column');
    expect(page3[right]).to.match(/Right column closing\.$/);
    expect(page3[right + 1]).to.equal('These recommendations will be reviewed at the next network meeting.');
  });
});
