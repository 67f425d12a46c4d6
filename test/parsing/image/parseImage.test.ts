import { expect } from 'chai';
import sharp from 'sharp';
import type { OcrEngine } from '../../../src/parsing/context.js';
import { ParseError } from '../../../src/parsing/errors.js';
import { images, type Block, type Image, type ParsedDocument } from '../../../src/parsing/model.js';
import { parseImage } from '../../../src/parsing/image/parseImage.js';
import { createTesseractOcr, type TesseractOcr } from '../../../src/parsing/ocr/tesseractOcr.js';
import { sleep } from '../../support/eventually.js';
import { expectParseError } from '../expectParseError.js';
import { imageFixture, imageSource } from '../ocr/imageFixtures.js';
import { expectWords, sourceWords } from '../ocr/ocrText.js';
import { imageContext } from './imageContext.js';

function paragraphs(document: ParsedDocument, page?: number): string {
  return document.blocks
    .filter((block): block is Extract<Block, { type: 'paragraph' }> => block.type === 'paragraph')
    .filter((block) => page === undefined || block.page === page)
    .map((block) => block.text)
    .join('\n\n');
}

function onlyImage(document: ParsedDocument): Image {
  const [image, ...rest] = images(document);
  expect(rest).to.have.length(0);
  if (!image) throw new Error('no image block');
  return image;
}

async function pngSize(data: Uint8Array | null): Promise<[number, number, string]> {
  if (!data) throw new Error('image data was dropped');
  const metadata = await sharp(data).metadata();
  return [metadata.width, metadata.height, metadata.format];
}

describe('parseImage', function () {
  this.timeout(60_000);
  let ocr: TesseractOcr;

  before(() => {
    ocr = createTesseractOcr({ workers: 2 });
  });
  after(() => ocr.close());

  describe('formats', () => {
    it('reads a PNG paragraph: one page, an image block with size and PNG data, then the OCR paragraphs', async () => {
      const document = await parseImage(imageFixture('english.png'), imageContext('english.png', ocr));
      expect(document.format).to.equal('.png');
      expect(document.sourceFile).to.equal('english.png');
      expect(document.metadata).to.deep.include({
        title: 'english',
        author: null,
        numPages: 1,
        language: null,
      });
      expect(document.pages).to.deep.equal([{ number: 1, hasTextLayer: false, ocr: 'applied', note: null }]);
      expect(document.blocks[0]?.type).to.equal('image');
      const image = onlyImage(document);
      expect(image).to.deep.include({ index: 0, pageNumber: 1, format: 'png', width: 836, height: 197 });
      expect(image).to.deep.include({ description: '', kind: 'unknown', altText: null });
      expect(await pngSize(image.data)).to.deep.equal([836, 197, 'png']);
      expectWords(paragraphs(document), sourceWords(imageSource('english.txt')));
      expectWords(image.ocrText ?? '', ['library', 'newspapers', 'basement']);
      expect(document.warnings).to.deep.equal([]);
    });

    it('reads a JPEG and keeps the lines of a paragraph together in one block', async () => {
      const document = await parseImage(imageFixture('english.jpg'), imageContext('Scan 7.JPG', ocr));
      expect(document.format).to.equal('.jpg');
      expect(document.metadata.title).to.equal('Scan 7');
      expect(onlyImage(document)).to.deep.include({ format: 'jpeg', width: 791, height: 168 });
      const texts = document.blocks.filter((block) => block.type === 'paragraph');
      expect(texts).to.have.length(1);
      expect(paragraphs(document).split('\n')).to.have.length(3);
      expectWords(paragraphs(document), sourceWords(imageSource('english-jpeg.txt')));
    });

    it('reads Arabic text from an image', async () => {
      const document = await parseImage(imageFixture('arabic.png'), imageContext('arabic.png', ocr));
      expectWords(paragraphs(document), [
        'مرحبا',
        'بكم',
        'المكتبة',
        'الرقمية',
        'تحتوي',
        'الوثيقة',
        'عربي',
        'قصير',
      ]);
    });

    it('turns each page of a 2-page TIFF into a page with its own image block and text', async () => {
      const document = await parseImage(imageFixture('two-pages.tiff'), imageContext('report.tif', ocr));
      expect(document.format).to.equal('.tif');
      expect(document.metadata.numPages).to.equal(2);
      expect(document.pages.map((page) => [page.number, page.ocr])).to.deep.equal([
        [1, 'applied'],
        [2, 'applied'],
      ]);
      expect(images(document).map((image) => [image.index, image.pageNumber, image.format])).to.deep.equal([
        [0, 1, 'tiff'],
        [1, 2, 'tiff'],
      ]);
      expectWords(paragraphs(document, 1), sourceWords(imageSource('page1.txt')));
      expectWords(paragraphs(document, 2), sourceWords(imageSource('page2.txt')));
      expect(paragraphs(document, 1)).not.to.match(/Warehouse/);
      expect(paragraphs(document, 2)).not.to.match(/Harbour/);
    });

    for (const name of ['text-24bit.bmp', 'text-8bit.bmp', 'text-32bit.bmp']) {
      it(`reads ${name} (decoded by our own BMP decoder)`, async () => {
        const document = await parseImage(imageFixture(name), imageContext(name, ocr));
        expect(document.format).to.equal('.bmp');
        const image = onlyImage(document);
        expect(image).to.deep.include({ format: 'bmp', width: 380, height: 135 });
        expect(await pngSize(image.data)).to.deep.equal([380, 135, 'png']);
        expectWords(paragraphs(document), sourceWords(imageSource('bmp.txt')));
      });
    }

    it('keeps a copy of at most 2000 px on the long side and notes a page without text', async () => {
      const blank = await sharp({ create: { width: 3000, height: 1200, channels: 3, background: '#ffffff' } })
        .png()
        .toBuffer();
      const document = await parseImage(new Uint8Array(blank), imageContext('blank.png', ocr));
      const image = onlyImage(document);
      expect([image.width, image.height]).to.deep.equal([3000, 1200]);
      expect(await pngSize(image.data)).to.deep.equal([2000, 800, 'png']);
      expect(image.ocrText).to.equal('');
      expect(document.pages[0]).to.deep.include({ ocr: 'applied', note: 'OCR found no text on page 1' });
      expect(document.blocks).to.have.length(1);
    });
  });

  describe('bad input', () => {
    const parse = (bytes: Uint8Array, name: string, limits = {}): Promise<ParsedDocument> =>
      parseImage(bytes, imageContext(name, ocr, { limits }));

    it('rejects zero bytes as empty_document', async () => {
      await expectParseError(parse(new Uint8Array(), 'empty.png'), 'empty_document');
    });

    it('rejects a truncated PNG as corrupt_document', async () => {
      const error = await expectParseError(
        parse(imageFixture('truncated.png'), 'truncated.png'),
        'corrupt_document',
      );
      expect(error.message).to.match(/PNG/);
    });

    it('rejects a truncated JPEG and a truncated TIFF as corrupt_document', async () => {
      const jpeg = imageFixture('english.jpg');
      await expectParseError(parse(jpeg.subarray(0, jpeg.length / 2), 'cut.jpg'), 'corrupt_document');
      const tiff = imageFixture('two-pages.tiff');
      await expectParseError(
        parse(tiff.subarray(0, Math.floor(tiff.length * 0.6)), 'cut.tiff'),
        'corrupt_document',
      );
    });

    it('rejects a text file named .png as format_mismatch', async () => {
      const error = await expectParseError(
        parse(imageFixture('not-an-image.png'), 'photo.png'),
        'format_mismatch',
      );
      expect(error.message).to.match(/holds text/);
    });

    it('rejects a JPEG named .png as format_mismatch', async () => {
      const error = await expectParseError(
        parse(imageFixture('english.jpg'), 'english.png'),
        'format_mismatch',
      );
      expect(error.message).to.match(/JPEG/);
    });

    it('rejects unrecognisable binary named .bmp as corrupt_document', async () => {
      const noise = new Uint8Array(2048).map((_, index) => (index * 7919 + 13) % 251);
      await expectParseError(parse(noise, 'scan.bmp'), 'corrupt_document');
    });

    it('rejects a 50,000×50,000 px PNG header as too_large, quickly and without allocating', async () => {
      const rss = process.memoryUsage().rss;
      const started = performance.now();
      const error = await expectParseError(parse(imageFixture('pixel-bomb.png'), 'bomb.png'), 'too_large');
      expect(error.message).to.match(/50000×50000/);
      expect(performance.now() - started).to.be.below(500);
      expect(process.memoryUsage().rss - rss).to.be.below(50 * 1024 * 1024);
    });

    it('enforces maxPages on multi-page TIFFs and maxInputBytes on any image', async () => {
      await expectParseError(parse(imageFixture('two-pages.tiff'), 'a.tiff', { maxPages: 1 }), 'too_large');
      await expectParseError(
        parse(imageFixture('english.png'), 'a.png', { maxInputBytes: 1000 }),
        'too_large',
      );
    });
  });

  describe('OCR outcomes', () => {
    it('stops with aborted when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      await expectParseError(
        parseImage(imageFixture('english.png'), imageContext('a.png', ocr, { signal: controller.signal })),
        'aborted',
      );
    });

    it('stops with aborted when the signal aborts during OCR', async () => {
      const controller = new AbortController();
      const parsing = parseImage(
        imageFixture('a4-page.png'),
        imageContext('page.png', ocr, { signal: controller.signal }),
      );
      await sleep(300);
      controller.abort();
      await expectParseError(parsing, 'aborted');
    });

    it('keeps the image and reports ocr "failed" with a warning when OCR fails for another reason', async () => {
      const failing: OcrEngine = {
        recognize: () => Promise.reject(new ParseError('corrupt_document', 'OCR failed: engine broke')),
        close: () => Promise.resolve(),
      };
      const document = await parseImage(imageFixture('english.png'), imageContext('english.png', failing));
      expect(document.pages[0]).to.deep.include({ ocr: 'failed' });
      expect(document.pages[0]?.note).to.match(/engine broke/);
      expect(document.warnings).to.deep.equal(['OCR of page 1 failed: OCR failed: engine broke']);
      expect(document.blocks.map((block) => block.type)).to.deep.equal(['image']);
    });

    it('passes an OCR timeout through as the document error', async () => {
      const slow: OcrEngine = {
        recognize: () => Promise.reject(new ParseError('timeout', 'OCR took longer than 10 ms')),
        close: () => Promise.resolve(),
      };
      await expectParseError(parseImage(imageFixture('english.png'), imageContext('a.png', slow)), 'timeout');
    });
  });
});
