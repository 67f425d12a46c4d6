import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { HELD_OUT_CORPUS, parseCorpusFile } from '../../../eval/parsing/evaluate.js';
import { characterErrorRate } from '../../../eval/parsing/score.js';
import { preferArabicReading, worthArabicAlone } from '../../../src/parsing/ocr/ocrPasses.js';
import { preprocessPage } from '../../../src/parsing/ocr/pagePreprocess.js';
import { createTesseractOcr, type TesseractOcr } from '../../../src/parsing/ocr/tesseractOcr.js';
import type { ParseServices } from '../../../src/parsing/job.js';

/**
 * Arabic OCR on pages set in other type families than the real corpus's DejaVu Sans
 * (test/corpus/heldout/ocr-ar-*, made by scripts/corpus/renderArabicFonts.ts).
 */
describe('Arabic OCR across type families', () => {
  describe('smoothing grain without losing thin strokes', () => {
    const WIDTH = 240;
    const HEIGHT = 120;
    const PAPER = 230;
    /** Columns of a one-pixel hairline, as the thin strokes of Naskh type are at 150 DPI. */
    const HAIRLINES = [40, 80, 120, 160, 200];

    /** Grainy grey paper (seeded, spread ±20) with five dark one-pixel vertical hairlines. */
    const grainyPageWithHairlines = async (): Promise<Buffer> => {
      let state = 7;
      const random = (): number => {
        state = (state * 1103515245 + 12345) % 2147483648;
        return state / 2147483648;
      };
      const pixels = new Uint8Array(WIDTH * HEIGHT);
      for (let y = 0; y < HEIGHT; y += 1) {
        for (let x = 0; x < WIDTH; x += 1) {
          const ink = HAIRLINES.includes(x) && y >= 20 && y < 100;
          pixels[y * WIDTH + x] = ink ? 40 : Math.round(PAPER + (random() + random() - 1) * 20);
        }
      }
      return sharp(pixels, { raw: { width: WIDTH, height: HEIGHT, channels: 1 } })
        .png()
        .toBuffer();
    };

    const greys = async (png: Buffer): Promise<Uint8Array> =>
      new Uint8Array(await sharp(png).extractChannel(0).raw().toBuffer());

    it('keeps a one-pixel stroke on a grainy page read at its own size, and smooths the grain', async () => {
      const before = await grainyPageWithHairlines();
      const { image, done } = await preprocessPage(before, 30e6);
      expect(done).to.deep.equal({ scale: 1, deskewDegrees: 0, denoised: true });
      const after = await greys(image);
      const strokes = HAIRLINES.flatMap((x) =>
        Array.from({ length: 60 }, (_, i) => after[(30 + i) * WIDTH + x] ?? 255),
      );
      const strokeMean = strokes.reduce((sum, value) => sum + value, 0) / strokes.length;
      // A 3×3 median turns every hairline pixel back into paper (~230); a mild Gaussian keeps it dark.
      expect(strokeMean).to.be.below(PAPER - 60);
      const paperRow = Array.from({ length: 30 }, (_, i) => after[10 * WIDTH + 5 + i] ?? 0);
      const paperMean = paperRow.reduce((sum, value) => sum + value, 0) / paperRow.length;
      const spread = Math.sqrt(
        paperRow.reduce((sum, value) => sum + (value - paperMean) ** 2, 0) / paperRow.length,
      );
      // The grain before smoothing spreads ~8 levels (the sum of two uniforms × 20).
      expect(spread).to.be.below(5);
    });
  });

  describe('choosing between the multilingual and the Arabic reading', () => {
    const reading = (text: string, confidence: number) => ({ text, confidence });

    it('re-reads a mostly Arabic page with the Arabic model when several models were loaded', () => {
      const arabic = reading('يستخدم الخط الأميري تقنية أوبن تيب GA Lb للخطوط الحاسوبية', 75);
      expect(worthArabicAlone('eng+ara', arabic)).to.equal(true);
      expect(worthArabicAlone('ara+eng', arabic)).to.equal(true);
    });

    it('does not re-read an English page, nor one read with a single or no Arabic model', () => {
      const english = reading('Asynchronous Task Scheduling: anacron runs the jobs it missed', 90);
      expect(worthArabicAlone('eng+ara', english)).to.equal(false);
      const arabic = reading('يستخدم الخط الأميري تقنية أوبن تيب', 80);
      expect(worthArabicAlone('ara', arabic)).to.equal(false);
      expect(worthArabicAlone('eng', arabic)).to.equal(false);
      expect(worthArabicAlone('eng+ara', reading('', 0))).to.equal(false);
    });

    it('counts letters, not words: an Arabic line with a long English command is still Arabic', () => {
      expect(worthArabicAlone('eng+ara', reading('الرجاء استخدام apt-cdrom لتعريف APT', 80))).to.equal(true);
      expect(worthArabicAlone('eng+ara', reading('Please use apt-cdrom لتعريف', 80))).to.equal(false);
    });

    it('takes the Arabic reading unless tesseract is less confident of it', () => {
      const multilingual = reading('multilingual', 77);
      expect(preferArabicReading(multilingual, reading('arabic', 77)).text).to.equal('arabic');
      expect(preferArabicReading(multilingual, reading('arabic', 80)).text).to.equal('arabic');
      expect(preferArabicReading(multilingual, reading('arabic', 65)).text).to.equal('multilingual');
    });
  });

  describe('reading held-out pages', function () {
    this.timeout(120_000);
    const never = (): Promise<never> => Promise.reject(new Error('not expected in this test'));
    let ocr: TesseractOcr;
    let services: ParseServices;

    before(() => {
      ocr = createTesseractOcr({ workers: 1 });
      services = { ocr, describer: { describe: never }, summarizer: { summarize: never } };
    });
    after(() => ocr.close());

    const read = async (id: string, file: string): Promise<{ text: string; cer: number }> => {
      const document = await parseCorpusFile(file, services, HELD_OUT_CORPUS);
      const text = document.blocks
        .flatMap((block) => (block.type === 'paragraph' ? [block.text] : []))
        .join('\n');
      const reference = readFileSync(new URL(`${id}.reference.txt`, HELD_OUT_CORPUS), 'utf8');
      return { text, cer: characterErrorRate(reference, text) };
    };

    it('reads a grainy page in Scheherazade (thin traditional Naskh) with few errors', async () => {
      // 0.575 with the 3×3 median and the English model competing for its words.
      const { text, cer } = await read('ocr-ar-scheherazade-scan', 'ocr-ar-scheherazade-scan.jpg');
      expect(cer).to.be.below(0.12);
      expect(text).to.not.match(/\b[A-Z]{2,}\b/);
    });

    it('reads a grainy page in Lateef, not looked at while fixing, with few errors', async () => {
      // 0.243 before.
      const { cer } = await read('ocr-ar-lateef-scan', 'ocr-ar-lateef-scan.jpg');
      expect(cer).to.be.below(0.08);
    });

    it('keeps the English commands of an Arabic page of apt messages', async () => {
      const { text } = await read('ocr-ar-notonaskh-mixed', 'ocr-ar-notonaskh-mixed.png');
      expect(text).to.include('apt-get update');
      expect(text).to.include('apt@packages.debian.org');
      expect(text).to.include('(Content-Length)');
    });
  });
});
