import { expect } from 'chai';
import type { Block, ParsedDocument, ParseProgress } from '../../../src/parsing/model.js';
import { images, tables } from '../../../src/parsing/model.js';
import { parsePdf, parsePdfIncremental } from '../../../src/parsing/pdf/index.js';
import { fixture, pdfContext } from './pdfContext.js';

const topics = [
  'Station Network',
  'Rainfall Records',
  'Wind Measurements',
  'Temperature Trends',
  'Sensor Calibration',
  'Data Transmission',
  'Field Maintenance',
  'Coastal Exposure',
  'Highland Operations',
  'Quality Control',
  'Archive Storage',
  'Public Reports',
  'Staff Training',
  'Budget Review',
];

/** The headings the fixture script writes for each chapter, in order. */
function expectedHeadings(): Array<[string, number]> {
  return Array.from({ length: 18 }, (_, index) => {
    const n = index + 1;
    const topic = topics[index % topics.length] ?? '';
    const title = index < topics.length ? topic : `${topic} (part 2)`;
    return [
      [`Chapter ${n}. ${title}`, 1],
      [`${n}.1 Overview`, 2],
      [`${n}.1.1 Scope`, 3],
      [`${n}.2 Findings`, 2],
      [`${n}.2.1 Notes`, 3],
    ] as Array<[string, number]>;
  }).flat();
}

const headingsOf = (blocks: Block[]): Array<[string, number]> =>
  blocks.flatMap((block) =>
    block.type === 'heading' ? [[block.text, block.level] as [string, number]] : [],
  );

describe('parsePdf on a 54-page generated report (long.pdf)', () => {
  let doc: ParsedDocument;

  before(async () => {
    doc = await parsePdf(fixture('long.pdf'), pdfContext('long.pdf'));
  });

  it('reads all 54 pages with a text layer', () => {
    expect(doc.metadata.numPages).to.equal(54);
    expect(doc.pages.map((page) => page.number)).to.deep.equal(Array.from({ length: 54 }, (_, i) => i + 1));
    expect(doc.pages.every((page) => page.hasTextLayer && page.ocr === 'not_needed')).to.equal(true);
  });

  it('takes the first heading as title when the PDF has none, and the author from Info', () => {
    expect(doc.metadata.title).to.equal('Chapter 1. Station Network');
    expect(doc.metadata.author).to.equal('Archivist fixtures');
  });

  it('finds every heading on three levels, in order', () => {
    expect(headingsOf(doc.blocks)).to.deep.equal(expectedHeadings());
    const chapters = doc.blocks.filter((block) => block.type === 'heading' && block.level === 1);
    // Every chapter starts a page; chapter 1 is on page 1 and they advance through the document.
    expect(chapters[0]?.page).to.equal(1);
    const pages = chapters.map((block) => block.page);
    expect(pages).to.deep.equal([...pages].sort((a, b) => a - b));
    expect(pages[pages.length - 1]).to.be.greaterThan(50);
  });

  it('finds the table of every chapter: 5 rows by 4 columns with the header first', () => {
    const found = tables(doc);
    expect(found).to.have.length(18);
    found.forEach((table, index) => {
      expect(table.index).to.equal(index);
      expect(table.cells).to.have.length(5);
      expect(table.cells.every((row) => row.length === 4)).to.equal(true);
      expect(table.cells[0]).to.deep.equal(['Station', 'Readings', 'Faults', 'Uptime']);
      expect(table.cells.slice(1).map((row) => row[0])).to.deep.equal(
        [1, 2, 3, 4].map((row) => `S-${index + 1}${row}`),
      );
      expect(
        table.cells.slice(1).every((row) => /^\d{4}$/.test(row[1] ?? '') && /^\d{2}%$/.test(row[3] ?? '')),
      ).to.equal(true);
    });
  });

  it('drops the logo repeated in every page header, the header text and the footers', () => {
    expect(images(doc)).to.deep.equal([]);
    const text = doc.blocks.map((block) => (block.type === 'paragraph' ? block.text : '')).join('\n');
    expect(text).not.to.include('Station Network Annual Review');
    expect(text).not.to.match(/Page \d+ of 54/);
  });
});

describe('parsePdfIncremental on long.pdf', () => {
  it('announces metadata first, then each page in order with the page count', async () => {
    const items: ParseProgress[] = [];
    for await (const item of parsePdfIncremental(fixture('long.pdf'), pdfContext('long.pdf')))
      items.push(item);
    const [first, ...pages] = items;
    expect(first?.type).to.equal('metadata');
    if (first?.type !== 'metadata') return;
    expect(first.totalPages).to.equal(54);
    expect(first.metadata.numPages).to.equal(54);
    // Without an Info title, the first heading-sized line of the first pages stands in.
    expect(first.metadata.title).to.equal('Chapter 1. Station Network');
    expect(
      pages.map((item) => (item.type === 'page' ? [item.page.number, item.totalPages] : null)),
    ).to.deep.equal(Array.from({ length: 54 }, (_, i) => [i + 1, 54]));
    const blocks = pages.flatMap((item) => (item.type === 'page' ? item.blocks : []));
    expect(headingsOf(blocks)).to.deep.equal(expectedHeadings());
    expect(
      blocks
        .filter((block) => block.type === 'table')
        .map((block) => block.type === 'table' && block.table.index),
    ).to.deep.equal(Array.from({ length: 18 }, (_, i) => i));
  });

  it('gives the same blocks as parsePdf on the report', async () => {
    const whole = await parsePdf(fixture('report.pdf'), pdfContext('report.pdf'));
    const blocks: Block[] = [];
    for await (const item of parsePdfIncremental(fixture('report.pdf'), pdfContext('report.pdf'))) {
      if (item.type === 'page') blocks.push(...item.blocks);
    }
    expect(blocks).to.deep.equal(whole.blocks);
  });

  it('can be stopped after the first page and leaves the bytes usable', async () => {
    const bytes = fixture('long.pdf');
    let seen = 0;
    for await (const item of parsePdfIncremental(bytes, pdfContext('long.pdf'))) {
      if (item.type === 'page') seen += 1;
      if (seen === 1) break;
    }
    expect(seen).to.equal(1);
    // pdf.js detaches the buffer it is given; the parser hands it a copy.
    expect(bytes.byteLength).to.be.greaterThan(200_000);
    const again = await parsePdf(bytes, pdfContext('long.pdf'));
    expect(again.metadata.numPages).to.equal(54);
  });
});
