import { expect } from 'chai';
import type { Describer, ImageDescription, ImageToDescribe } from '../../../src/parsing/context.js';
import { ParseError } from '../../../src/parsing/errors.js';
import { describeImages } from '../../../src/parsing/describe/describeImages.js';
import { createLocalDescriber } from '../../../src/parsing/describe/localDescriber.js';
import { parseImage } from '../../../src/parsing/image/parseImage.js';
import { images, type Block, type Image, type ParsedDocument } from '../../../src/parsing/model.js';
import { createTesseractOcr, type TesseractOcr } from '../../../src/parsing/ocr/tesseractOcr.js';
import { imageContext } from '../image/imageContext.js';
import { sleep } from '../../support/eventually.js';
import { expectParseError } from '../expectParseError.js';
import { imageFixture } from '../ocr/imageFixtures.js';
import { expectWords } from '../ocr/ocrText.js';

function image(index: number, page: number, overrides: Partial<Image> = {}): Block {
  return {
    type: 'image',
    page,
    image: {
      index,
      pageNumber: page,
      description: '',
      format: 'png',
      width: 800,
      height: 500,
      altText: null,
      ocrText: null,
      kind: 'unknown',
      data: imageFixture('chart.png'),
      ...overrides,
    },
  };
}

function document(blocks: Block[]): ParsedDocument {
  return {
    format: '.docx',
    sourceFile: 'report.docx',
    metadata: { title: 'Report', author: null, numPages: 2, language: null, extra: {} },
    pages: [1, 2].map((number) => ({ number, hasTextLayer: true, ocr: 'not_needed' as const, note: null })),
    blocks,
    warnings: ['an earlier warning'],
  };
}

/** A Describer that records what it was asked and answers with the context it got. */
function recordingDescriber(options: { delayMs?: number; failOn?: number } = {}) {
  const calls: ImageToDescribe[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const describer: Describer = {
    describe: async (input): Promise<ImageDescription> => {
      calls.push(input);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        if (options.delayMs) await sleep(options.delayMs);
        if (options.failOn === calls.length) throw new Error('model refused');
        return {
          text: `described with context: ${input.context ?? 'none'}`,
          kind: 'diagram',
          ocrText: 'seen text',
        };
      } finally {
        inFlight -= 1;
      }
    },
  };
  return { describer, calls, maxInFlight: () => maxInFlight };
}

const context = (describer: Describer, enableImageDescription: boolean, signal?: AbortSignal) => ({
  ...imageContext(
    'report.docx',
    { recognize: () => Promise.reject(new Error('no OCR')), close: async () => {} },
    {
      options: { enableImageDescription },
      ...(signal ? { signal } : {}),
    },
  ),
  describer,
});

describe('describeImages', function () {
  this.timeout(60_000);

  describe('with a real parse and the local describer', () => {
    let ocr: TesseractOcr;
    before(() => {
      ocr = createTesseractOcr({ workers: 2 });
    });
    after(() => ocr.close());

    it('describes a parsed chart image, keeps its OCR text and drops the bytes', async () => {
      const ctx = { ...imageContext('chart.png', ocr), describer: createLocalDescriber({ ocr }) };
      const parsed = await parseImage(imageFixture('chart.png'), ctx);
      const described = await describeImages(parsed, ctx);
      const [chart] = images(described);
      expect(chart?.kind).to.equal('chart');
      expect(chart?.description).to.match(/^PNG image, 800×500 px; looks like a chart/);
      expectWords(chart?.description ?? '', ['Revenue', 'Q1', 'Q4']);
      expect(chart?.ocrText).to.equal(images(parsed)[0]?.ocrText);
      expect(chart?.data).to.equal(null);
      expect(images(parsed)[0]?.data).not.to.equal(null);
    });
  });

  it('gives each image its nearest heading, adjacent caption and alt text as context', async () => {
    const recording = recordingDescriber();
    const blocks: Block[] = [
      { type: 'heading', text: 'Results', level: 1, page: 1 },
      { type: 'paragraph', text: 'Sales grew all year.', page: 1 },
      image(0, 1),
      { type: 'paragraph', text: 'Figure 2: Revenue by quarter', page: 1 },
      { type: 'heading', text: 'Appendix', level: 2, page: 2 },
      image(1, 2, { altText: 'Company logo' }),
      { type: 'paragraph', text: 'Figureheads of the fleet are listed below.', page: 2 },
    ];
    const described = await describeImages(document(blocks), context(recording.describer, true));
    expect(recording.calls.map((call) => call.context)).to.deep.equal([
      'Results — Figure 2: Revenue by quarter',
      'Appendix — Company logo',
    ]);
    expect(
      images(described).map((item) => [item.description, item.kind, item.ocrText, item.data]),
    ).to.deep.equal([
      ['described with context: Results — Figure 2: Revenue by quarter', 'diagram', 'seen text', null],
      ['described with context: Appendix — Company logo', 'diagram', 'seen text', null],
    ]);
    expect(described.blocks.map((block) => block.type)).to.deep.equal(blocks.map((block) => block.type));
  });

  it('without image description, writes a factual line, never calls the describer, and drops the bytes', async () => {
    const recording = recordingDescriber();
    const blocks = [
      image(0, 1),
      image(1, 2, { format: 'jpeg', width: 640, height: 480, altText: 'Harbour at dusk' }),
    ];
    const described = await describeImages(document(blocks), context(recording.describer, false));
    expect(recording.calls).to.have.length(0);
    expect(images(described).map((item) => [item.description, item.data])).to.deep.equal([
      ['PNG image, 800×500 px.', null],
      ['JPEG image, 640×480 px. Alt text: Harbour at dusk', null],
    ]);
  });

  it('turns one failing image into a warning and still describes the others', async () => {
    const recording = recordingDescriber({ failOn: 2 });
    const described = await describeImages(
      document([image(0, 1), image(1, 1), image(2, 2)]),
      context(recording.describer, true),
    );
    expect(images(described).map((item) => item.description)).to.deep.equal([
      'described with context: none',
      'PNG image, 800×500 px.',
      'described with context: none',
    ]);
    expect(described.warnings).to.deep.equal([
      'an earlier warning',
      'image 2 on page 1 could not be described: model refused',
    ]);
    expect(images(described).every((item) => item.data === null)).to.equal(true);
  });

  it('describes at most two images at a time', async () => {
    const recording = recordingDescriber({ delayMs: 30 });
    const blocks = Array.from({ length: 6 }, (_, index) => image(index, 1));
    await describeImages(document(blocks), context(recording.describer, true));
    expect(recording.calls).to.have.length(6);
    expect(recording.maxInFlight()).to.equal(2);
  });

  it('stops with aborted when the signal aborts', async () => {
    const recording = recordingDescriber({ delayMs: 50 });
    const controller = new AbortController();
    const abortingDescriber: Describer = {
      describe: async (input, signal) => {
        controller.abort();
        return recording.describer.describe(input, signal);
      },
    };
    await expectParseError(
      describeImages(
        document([image(0, 1), image(1, 1), image(2, 1)]),
        context(abortingDescriber, true, controller.signal),
      ),
      'aborted',
    );
  });

  it("maps an abort for the document's time budget to timeout", async () => {
    const slow = recordingDescriber({ delayMs: 200 });
    const stage = describeImages(
      document([image(0, 1), image(1, 1), image(2, 1)]),
      context(slow.describer, true, AbortSignal.timeout(100)),
    );
    await expectParseError(stage, 'timeout');
  });

  it("takes a describer's own timeout as one image's failure, not the document's", async () => {
    const timingOut: Describer = {
      describe: () => Promise.reject(new ParseError('timeout', 'OCR took too long')),
    };
    const described = await describeImages(document([image(0, 1)]), context(timingOut, true));
    expect(images(described)[0]?.description).to.equal('PNG image, 800×500 px.');
    expect(described.warnings[1]).to.equal('image 1 on page 1 could not be described: OCR took too long');
  });
});
