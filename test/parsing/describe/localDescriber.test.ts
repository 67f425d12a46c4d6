import { expect } from 'chai';
import type { ImageToDescribe, OcrEngine } from '../../../src/parsing/context.js';
import { ParseError } from '../../../src/parsing/errors.js';
import { measureImage } from '../../../src/parsing/describe/imageMeasures.js';
import { CLASSIFICATION, createLocalDescriber } from '../../../src/parsing/describe/localDescriber.js';
import { createTesseractOcr, type TesseractOcr } from '../../../src/parsing/ocr/tesseractOcr.js';
import { expectParseError } from '../expectParseError.js';
import { imageFixture } from '../ocr/imageFixtures.js';
import { expectWords } from '../ocr/ocrText.js';

const live = (): AbortSignal => new AbortController().signal;

function input(name: string, format: string, width: number, height: number): ImageToDescribe {
  return { data: imageFixture(name), format, width, height, context: null };
}

/** An OCR engine that must not be reached. */
const unusedOcr: OcrEngine = {
  recognize: () => Promise.reject(new Error('OCR should not run')),
  close: () => Promise.resolve(),
};

describe('local describer', function () {
  this.timeout(60_000);
  let ocr: TesseractOcr;

  before(() => {
    ocr = createTesseractOcr({ workers: 2 });
  });
  after(() => ocr.close());

  describe('classification', () => {
    it('describes a bar chart as a chart, with its format, size and labels', async () => {
      const describer = createLocalDescriber({ ocr });
      const result = await describer.describe(input('chart.png', 'png', 800, 500), live());
      expect(result.kind).to.equal('chart');
      expect(result.text).to.match(
        /^PNG image, 800×500 px; looks like a chart \(few flat colours, straight axes\)\. Text found: /,
      );
      expectWords(result.text, ['Revenue', '2024', 'Q1', 'Q2', 'Q3', 'Q4']);
      expectWords(result.ocrText ?? '', ['Revenue', 'Q4']);
    });

    it('describes boxes joined by arrows as a diagram and reads the box labels', async () => {
      const result = await createLocalDescriber({ ocr }).describe(
        input('diagram.png', 'png', 900, 300),
        live(),
      );
      expect(result.kind).to.equal('diagram');
      expect(result.text).to.match(/^PNG image, 900×300 px; looks like a diagram/);
      expectWords(result.text, ['Upload', 'Parse', 'Chunk', 'Index']);
    });

    it('describes a many-coloured, detailed picture as a photograph without inventing text', async () => {
      const result = await createLocalDescriber({ ocr }).describe(
        input('photo.jpg', 'jpeg', 640, 480),
        live(),
      );
      expect(result).to.deep.equal({
        text: 'JPEG image, 640×480 px; looks like a photograph (many colours, fine detail).',
        kind: 'photo',
        ocrText: null,
      });
    });

    it('describes a scanned page as mostly text, quoting a trimmed excerpt', async () => {
      const result = await createLocalDescriber({ ocr }).describe(
        input('a4-page.png', 'png', 1241, 1754),
        live(),
      );
      expect(result.kind).to.equal('text');
      const words = Number(/mostly text \((\d+) words read by OCR\)/.exec(result.text)?.[1]);
      expect(words).to.be.within(330, 400);
      const quoted = result.text.split('Text found: ')[1] ?? '';
      expect(quoted.length).to.be.within(200, 302);
      expect(quoted).to.match(/^Annual Report of the Regional Library Network The regional library/);
      expect(quoted.endsWith(' …')).to.equal(true);
      expect(result.ocrText?.length).to.be.greaterThan(2000);
    });

    it('describes short lines of English and of Arabic as text', async () => {
      const describer = createLocalDescriber({ ocr });
      expect((await describer.describe(input('text-8bit.bmp', 'bmp', 380, 135), live())).kind).to.equal(
        'text',
      );
      const arabic = await describer.describe(input('arabic.png', 'png', 572, 200), live());
      expect(arabic.kind).to.equal('text');
      expectWords(arabic.text, ['المكتبة', 'الرقمية']);
    });

    it('measures the fixtures on the documented sides of the thresholds', async () => {
      const chart = await measureImage(imageFixture('chart.png'));
      const diagram = await measureImage(imageFixture('diagram.png'));
      const photo = await measureImage(imageFixture('photo.jpg'));
      const texts = await Promise.all(
        ['english.png', 'english.jpg', 'arabic.png', 'a4-page.png', 'transparent.png'].map((name) =>
          measureImage(imageFixture(name)),
        ),
      );
      for (const graphic of [chart, diagram]) {
        expect(graphic.topColoursShare).to.be.at.least(CLASSIFICATION.flatTopColours);
        expect(graphic.flatShare).to.be.at.least(CLASSIFICATION.flatShare);
        expect(graphic.straightEdgeShare).to.be.at.least(CLASSIFICATION.straightEdges + 0.1);
      }
      expect([chart.hasAxes, diagram.hasAxes]).to.deep.equal([true, false]);
      expect(photo.colourEntropy).to.be.at.least(CLASSIFICATION.photoEntropy + 2);
      expect(photo.topColoursShare).to.be.below(CLASSIFICATION.photoTopColours - 0.3);
      for (const text of texts) {
        expect(text.straightEdgeShare).to.be.below(CLASSIFICATION.straightEdges - 0.1);
        expect(text.colourEntropy).to.be.below(CLASSIFICATION.photoEntropy - 3);
      }
    });
  });

  describe('OCR use', () => {
    it('uses OCR text the parser already found instead of reading the image again', async () => {
      const describer = createLocalDescriber({ ocr: unusedOcr });
      const image = { ...input('english.png', 'png', 836, 197), ocrText: 'Readers may borrow five books' };
      const result = await describer.describe(image, live());
      expect(result.kind).to.equal('text');
      expect(result.text).to.equal(
        'PNG image, 836×197 px; mostly text (5 words read by OCR). Text found: Readers may borrow five books',
      );
    });

    it('still describes what it measured when OCR fails', async () => {
      const broken: OcrEngine = {
        recognize: () => Promise.reject(new ParseError('corrupt_document', 'OCR failed')),
        close: () => Promise.resolve(),
      };
      const result = await createLocalDescriber({ ocr: broken }).describe(
        input('chart.png', 'png', 800, 500),
        live(),
      );
      expect(result).to.deep.equal({
        text: 'PNG image, 800×500 px; looks like a chart (few flat colours, straight axes).',
        kind: 'chart',
        ocrText: null,
      });
    });
  });

  describe('bad input', () => {
    it('rejects undecodable bytes as corrupt_document', async () => {
      const describer = createLocalDescriber({ ocr });
      await expectParseError(
        describer.describe({ ...input('truncated.png', 'png', 836, 197) }, live()),
        'corrupt_document',
      );
    });

    it('stops with aborted when the signal aborts', async () => {
      const controller = new AbortController();
      controller.abort();
      await expectParseError(
        createLocalDescriber({ ocr }).describe(input('chart.png', 'png', 800, 500), controller.signal),
        'aborted',
      );
    });
  });
});
