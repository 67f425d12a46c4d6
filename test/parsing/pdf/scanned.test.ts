import { expect } from 'chai';
import type { OcrEngine } from '../../../src/parsing/context.js';
import { ParseError } from '../../../src/parsing/errors.js';
import { createTesseractOcr } from '../../../src/parsing/ocr/tesseractOcr.js';
import { parsePdf } from '../../../src/parsing/pdf/index.js';
import { expectParseError } from '../expectParseError.js';
import { fixture, pdfContext } from './pdfContext.js';

describe('parsePdf on a scanned page (scanned.pdf: a text page, then a 150 DPI scan)', () => {
  it('reports the scanned page as having no text layer when OCR is off', async () => {
    const doc = await parsePdf(fixture('scanned.pdf'), pdfContext('scanned.pdf'));
    expect(doc.metadata.numPages).to.equal(2);
    expect(doc.pages).to.deep.equal([
      { number: 1, hasTextLayer: true, ocr: 'not_needed', note: null },
      {
        number: 2,
        hasTextLayer: false,
        ocr: 'skipped',
        note: 'page 2 has no text layer; set enable_ocr to read it',
      },
    ]);
    expect(doc.blocks.map((block) => block.page)).to.deep.equal([1, 1]);
    // The scan is the page itself, not a figure on it.
    expect(doc.blocks.some((block) => block.type === 'image')).to.equal(false);
  });

  describe('with OCR enabled', function () {
    this.timeout(60_000);
    let ocr: ReturnType<typeof createTesseractOcr>;
    before(() => {
      ocr = createTesseractOcr({ workers: 1 });
    });
    after(async () => {
      await ocr.close();
    });

    it('reads the scan with tesseract into paragraphs of page 2', async () => {
      const doc = await parsePdf(
        fixture('scanned.pdf'),
        pdfContext('scanned.pdf', { ocr, options: { enableOcr: true } }),
      );
      expect(doc.pages[1]).to.deep.equal({ number: 2, hasTextLayer: false, ocr: 'applied', note: null });
      const scanned = doc.blocks.filter((block) => block.page === 2);
      expect(scanned.length).to.be.greaterThan(1);
      expect(scanned.every((block) => block.type === 'paragraph')).to.equal(true);
      const text = scanned.map((block) => (block.type === 'paragraph' ? block.text : '')).join('\n');
      expect(text).to.include('DELIVERY NOTE 4471');
      for (const words of ['shipment of forty crates', 'signed for by the warehouse team', 'water damage']) {
        expect(text).to.include(words);
      }
      // The first page keeps its own text layer.
      expect(doc.blocks[0]).to.deep.include({ type: 'heading', text: 'Delivery Notes', level: 1, page: 1 });
    });
  });

  it('marks the page as failed, with the reason, when the OCR engine fails', async () => {
    const broken: OcrEngine = {
      recognize: () => Promise.reject(new Error('engine unavailable')),
      close: () => Promise.resolve(),
    };
    const doc = await parsePdf(
      fixture('scanned.pdf'),
      pdfContext('scanned.pdf', { ocr: broken, options: { enableOcr: true } }),
    );
    expect(doc.pages[1]).to.deep.equal({
      number: 2,
      hasTextLayer: false,
      ocr: 'failed',
      note: 'OCR of page 2 failed: engine unavailable',
    });
    expect(doc.warnings).to.deep.equal(['OCR of page 2 failed: engine unavailable']);
  });

  it('stops with "aborted" when the caller aborts during OCR', async () => {
    const controller = new AbortController();
    const stalled: OcrEngine = {
      recognize: (_image, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(new ParseError('aborted', 'OCR aborted')));
          controller.abort();
        }),
      close: () => Promise.resolve(),
    };
    const ctx = pdfContext('scanned.pdf', {
      ocr: stalled,
      signal: controller.signal,
      options: { enableOcr: true },
    });
    await expectParseError(parsePdf(fixture('scanned.pdf'), ctx), 'aborted');
  });
});
