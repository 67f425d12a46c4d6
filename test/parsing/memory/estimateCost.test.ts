import { expect } from 'chai';
import sharp from 'sharp';
import type { CostModel } from '../../../src/parsing/memory/costModel.js';
import { COST_MODEL } from '../../../src/parsing/memory/costModel.js';
import { estimateParseCost, pdfPageCount } from '../../../src/parsing/memory/estimateCost.js';
import { expectParseError } from '../expectParseError.js';
import { buildZip, minimalDocx } from '../office/zipWriter.js';
import { handmadePdf } from '../pdf/handmadePdf.js';

/** Round numbers, so each test can say exactly what its estimate must be. */
const MODEL: CostModel = {
  fixedBytes: 1_000,
  inputCopies: 0,
  textPerByte: { '.txt': 1, '.csv': 2 },
  textPerLine: 10,
  csvPerField: 100,
  csvPerByte: 0,
  pdfFixedBytes: 0,
  pdfPerByte: 0,
  pdfPerPage: 1_000,
  xmlPerByte: 2,
  sheetPerByte: 3,
  sharedStringsPerByte: 5,
  mediaPerByte: 7,
  imagePerPixel: 1,
  imageMaxPixels: 1_000_000,
};

const cost = async (bytes: Uint8Array, fileName: string): Promise<number> =>
  (await estimateParseCost({ bytes, fileName }, MODEL)).bytes;

/** An entry that claims `size` bytes once inflated but holds a few random bytes: never inflatable. */
const declared = (name: string, size: number) => ({
  name,
  deflated: { bytes: Buffer.from([1, 2, 3, 4]), size },
});

/** 8 bytes of XML, in every package below. */
const CONTENT_TYPES = { name: '[Content_Types].xml', data: '<Types/>' };

describe('estimateParseCost', () => {
  it('weighs the parts of a DOCX by the sizes its ZIP directory declares, without inflating them', async () => {
    const zip = buildZip([
      CONTENT_TYPES,
      declared('word/document.xml', 10_000_000),
      declared('word/media/image1.png', 1_000_000),
      // Never read by the parser: embedded files and the like do not count.
      declared('word/embeddings/sheet.xlsx', 500_000_000),
    ]);
    const estimate = await estimateParseCost({ bytes: zip, fileName: 'big.docx' }, MODEL);
    expect(estimate.bytes).to.equal(1_000 + 2 * 8 + 2 * 10_000_000 + 7 * 1_000_000);
    expect(estimate.basis).to.equal('its parts inflate to 10 MB; word/document.xml alone to 9.5 MB');
  });

  it('weighs an XLSX sheet, its shared strings and its other parts each at their own rate', async () => {
    const zip = buildZip([
      CONTENT_TYPES,
      declared('xl/workbook.xml', 1_000),
      declared('xl/worksheets/sheet1.xml', 100_000),
      declared('xl/worksheets/_rels/sheet1.xml.rels', 10),
      declared('xl/sharedStrings.xml', 20_000),
    ]);
    expect(await cost(zip, 'book.xlsx')).to.equal(
      1_000 + 2 * 8 + 2 * 1_000 + 3 * 100_000 + 2 * 10 + 5 * 20_000,
    );
  });

  it('counts the fields of a CSV, and weighs a CSV of few long fields as text', async () => {
    const fields = Buffer.from('a,b;c\td|e\nf');
    expect(await cost(fields, 'f.csv')).to.equal(1_000 + 100 * 5);
    const prose = Buffer.from('x'.repeat(1_000));
    expect(await cost(prose, 'p.csv')).to.equal(1_000 + 2 * 1_000);
  });

  it('stops counting fields once the estimate is past what is enough to refuse', async () => {
    const line = Buffer.from(Array.from({ length: 10_000 }, (_, i) => `v${i}`).join(','));
    const full = await estimateParseCost({ bytes: line, fileName: 'one-line.csv' }, MODEL);
    expect(full.basis).to.contain('with up to 9,999 fields');
    const cut = await estimateParseCost({ bytes: line, fileName: 'one-line.csv' }, MODEL, 50_000);
    expect(cut.basis).to.contain('with more than 501 fields');
    expect(cut.bytes).to.be.above(50_000).and.below(full.bytes);
  });

  it('weighs plain text by its bytes and its lines', async () => {
    expect(await cost(Buffer.from('one\ntwo\n\nthree'), 'a.txt')).to.equal(1_000 + 14 + 10 * 3);
  });

  it("reads a PDF's page count from its page tree, or counts its page objects", () => {
    const tree = handmadePdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 250 >>']);
    expect(pdfPageCount(tree)).to.equal(250);
    const objects = Buffer.from(
      '1 0 obj << /Type /Page >> 2 0 obj <</Type/Page>> 3 0 obj << /Type /Pages >>',
    );
    expect(pdfPageCount(objects)).to.equal(2);
  });

  it('weighs an image by the pixels its header declares, up to what OCR keeps', async () => {
    const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#fff' } })
      .jpeg()
      .toBuffer();
    expect(await cost(png, 'a.png')).to.equal(1_000 + 60_000);
    expect(await cost(jpeg, 'a.jpg')).to.equal(1_000 + 307_200);
    const huge = await sharp({ create: { width: 2_000, height: 1_000, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    expect(await cost(huge, 'huge.png')).to.equal(1_000 + 1_000_000);
  });

  it('refuses what format detection refuses, as the worker would', async () => {
    await expectParseError(
      estimateParseCost({ bytes: new Uint8Array(0), fileName: 'e.txt' }),
      'empty_document',
    );
    await expectParseError(
      estimateParseCost({ bytes: Buffer.from('MZ\x90\x00binary'), fileName: 'tool.exe' }),
      'unsupported_format',
    );
  });

  it('prices the issue-9 inputs over the default budget, and everyday documents well under it', async () => {
    const budget = 500 * 1024 * 1024;
    const docx = buildZip([CONTENT_TYPES, declared('word/document.xml', 276_000_000)]);
    expect((await estimateParseCost({ bytes: docx, fileName: 'large.docx' }, COST_MODEL)).bytes).to.be.above(
      budget,
    );
    const report = minimalDocx('<w:p><w:r><w:t>A short report.</w:t></w:r></w:p>');
    expect(
      (await estimateParseCost({ bytes: report, fileName: 'report.docx' }, COST_MODEL)).bytes,
    ).to.be.below(budget / 10);
  });
});
