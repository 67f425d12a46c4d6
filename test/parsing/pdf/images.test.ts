import { expect } from 'chai';
import sharp from 'sharp';
import { images } from '../../../src/parsing/model.js';
import { parsePdf } from '../../../src/parsing/pdf/index.js';
import { imagePagePdf } from './handmadePdf.js';
import { expectParseError } from '../expectParseError.js';
import { pdfContext } from './pdfContext.js';

/** 64×48 RGB: left half red, right half blue. */
function halves(): Buffer {
  const pixels = Buffer.alloc(64 * 48 * 3);
  for (let y = 0; y < 48; y++) {
    for (let x = 0; x < 64; x++) pixels.set(x < 32 ? [255, 0, 0] : [0, 0, 255], (y * 64 + x) * 3);
  }
  return pixels;
}

describe('parsePdf on pages made of one image', () => {
  it('extracts a figure inside the margins (65 % of the page) as an image, not as a scan', async () => {
    const pdf = imagePagePdf({ width: 64, height: 48, bits: 8, pixels: halves(), box: [60, 100, 490, 570] });
    const doc = await parsePdf(pdf, pdfContext('figure.pdf'));
    expect(doc.pages).to.deep.equal([{ number: 1, hasTextLayer: true, ocr: 'not_needed', note: null }]);
    const [figure] = images(doc);
    expect(images(doc)).to.have.length(1);
    expect([figure?.index, figure?.pageNumber, figure?.format, figure?.width, figure?.height]).to.deep.equal([
      0,
      1,
      'png',
      64,
      48,
    ]);
    const { data, info } = await sharp(figure?.data ?? new Uint8Array())
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).to.deep.equal([64, 48, 3]);
    expect([...data.subarray(0, 3)]).to.deep.equal([255, 0, 0]);
    expect([...data.subarray((64 * 47 + 63) * 3, (64 * 47 + 64) * 3)]).to.deep.equal([0, 0, 255]);
  });

  it('takes a page filled by an image and without text for a scan', async () => {
    const pdf = imagePagePdf({ width: 64, height: 48, bits: 8, pixels: halves(), box: [0, 0, 612, 792] });
    const doc = await parsePdf(pdf, pdfContext('scan.pdf'));
    expect(doc.pages[0]).to.deep.include({ hasTextLayer: false, ocr: 'skipped' });
    expect(doc.blocks).to.deep.equal([]);
  });

  it('decodes a 1-bit grey image into black and white PNG pixels', async () => {
    // 40×32, one bit a pixel, rows padded to 5 bytes: the top half black (0), the bottom half white (1).
    const pixels = Buffer.alloc(5 * 32);
    pixels.fill(0xff, 5 * 16);
    const doc = await parsePdf(
      imagePagePdf({ width: 40, height: 32, bits: 1, pixels, box: [100, 300, 200, 160] }),
      pdfContext('bits.pdf'),
    );
    const [picture] = images(doc);
    expect([picture?.width, picture?.height]).to.deep.equal([40, 32]);
    const { data } = await sharp(picture?.data ?? new Uint8Array())
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(data[0]).to.equal(0);
    expect(data[40 * 31 + 39]).to.equal(255);
  });

  it('skips images smaller than 32 pixels on a side', async () => {
    const pixels = Buffer.alloc(20 * 20 * 3, 0x80);
    const pdf = imagePagePdf({ width: 20, height: 20, bits: 8, pixels, box: [100, 300, 200, 200] });
    // Nothing is left on the page once the icon is skipped.
    await expectParseError(parsePdf(pdf, pdfContext('tiny.pdf')), 'empty_document');
  });
});
