import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTesseractOcr, type TesseractOcr } from '../../../src/parsing/ocr/tesseractOcr.js';
import { packagedTraineddata } from '../../../src/parsing/ocr/tessdata.js';
import { imageFixture, imageSource } from './imageFixtures.js';
import { eventually } from '../../support/eventually.js';
import { expectParseError } from '../expectParseError.js';
import { expectWords, sourceWords } from './ocrText.js';
import { networkGuardImport } from './support/networkGuard.js';

const run = promisify(execFile);
const live = (): AbortSignal => new AbortController().signal;
const both = ['eng', 'ara'] as const;

const waitFor = (condition: () => boolean): Promise<true> => eventually(() => condition() || undefined, 5000);

describe('tesseract OCR engine', function () {
  this.timeout(60_000);
  let ocr: TesseractOcr;

  before(() => {
    ocr = createTesseractOcr({ workers: 2 });
  });
  after(() => ocr.close());

  describe('reading text', () => {
    it('reads every word of an English paragraph from a PNG', async () => {
      const result = await ocr.recognize(imageFixture('english.png'), { languages: both, signal: live() });
      expectWords(result.text, sourceWords(imageSource('english.txt')));
      expect(result.text.split('\n')[0]).to.match(/^The library opens every morning/);
      expect(result.confidence).to.be.greaterThan(80);
    });

    it('reads an English paragraph from a JPEG on a tinted background', async () => {
      const result = await ocr.recognize(imageFixture('english.jpg'), { languages: both, signal: live() });
      expectWords(result.text, sourceWords(imageSource('english-jpeg.txt')));
    });

    it('reads Arabic text rendered in Noto Naskh Arabic, in logical order', async () => {
      const result = await ocr.recognize(imageFixture('arabic.png'), { languages: both, signal: live() });
      expectWords(result.text, ['مرحبا', 'المكتبة', 'الرقمية', 'الوثيقة', 'عربي', 'قصير']);
      expect(result.text).to.match(/[\u0600-\u06ff]/);
    });

    it('does not read Arabic with the English model alone (the language choice matters)', async () => {
      const result = await ocr.recognize(imageFixture('arabic.png'), { languages: ['eng'], signal: live() });
      expect(result.text).not.to.match(/المكتبة/);
      const again = await ocr.recognize(imageFixture('arabic.png'), { languages: both, signal: live() });
      expect(again.text).to.match(/المكتبة/);
    });

    it('reads the labels inside the boxes of a diagram through the binarised retry', async () => {
      const result = await ocr.recognize(imageFixture('diagram.png'), { languages: both, signal: live() });
      expectWords(result.text, ['Upload', 'Parse', 'Chunk', 'Index']);
      expect(result.text).not.to.match(/\|/);
    });

    it('finds the axis labels of a bar chart through the sparse-text retry', async () => {
      const result = await ocr.recognize(imageFixture('chart.png'), { languages: both, signal: live() });
      expectWords(result.text, ['Revenue', '2024', 'Q1', 'Q2', 'Q3', 'Q4']);
    });

    it('misses those labels with the retries turned off (automatic layout alone)', async () => {
      const single = createTesseractOcr({ workers: 1, sparseRetryWords: 0 });
      try {
        const result = await single.recognize(imageFixture('chart.png'), { languages: both, signal: live() });
        expect(result.text).to.match(/Revenue/);
        expect(result.text).not.to.match(/Q3/);
      } finally {
        await single.close();
      }
    });

    it('reads black text on a transparent background (flattened onto white)', async () => {
      const result = await ocr.recognize(imageFixture('transparent.png'), {
        languages: both,
        signal: live(),
      });
      expectWords(result.text, ['Transparent', 'background', 'text']);
    });

    it('reads TIFF (first page) and 8-bit BMP input, which tesseract itself cannot always decode', async () => {
      const tiff = await ocr.recognize(imageFixture('two-pages.tiff'), { languages: both, signal: live() });
      expectWords(tiff.text, ['First', 'page', 'scanned', 'Harbour', 'traffic', 'doubled']);
      expect(tiff.text).not.to.match(/Warehouse/);
      const bmp = await ocr.recognize(imageFixture('text-8bit.bmp'), { languages: both, signal: live() });
      expectWords(bmp.text, ['Bitmap', 'images', 'still', 'appear', 'scanning', 'software']);
    });
  });

  describe('bad input', () => {
    it('rejects bytes that are no image as corrupt_document', async () => {
      await expectParseError(
        ocr.recognize(imageFixture('not-an-image.png'), { languages: both, signal: live() }),
        'corrupt_document',
      );
    });

    it('rejects a truncated PNG as corrupt_document', async () => {
      await expectParseError(
        ocr.recognize(imageFixture('truncated.png'), { languages: both, signal: live() }),
        'corrupt_document',
      );
    });

    it('rejects a PNG header claiming 50,000×50,000 px as too_large without decoding it', async () => {
      const before = process.memoryUsage().rss;
      await expectParseError(
        ocr.recognize(imageFixture('pixel-bomb.png'), { languages: both, signal: live() }),
        'too_large',
      );
      // 50,000² pixels would take gigabytes: the memory says nothing was decoded.
      expect(process.memoryUsage().rss - before).to.be.below(50 * 1024 * 1024);
    });
  });

  describe('cancellation and time limits', () => {
    it('rejects at once with aborted when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      await expectParseError(
        ocr.recognize(imageFixture('english.png'), { languages: both, signal: controller.signal }),
        'aborted',
      );
    });

    it('stops a running recognition on abort: rejects, terminates its worker, the next call works', async () => {
      const single = createTesseractOcr({ workers: 1 });
      try {
        await single.recognize(imageFixture('english.png'), { languages: both, signal: live() });
        const controller = new AbortController();
        const page = single.recognize(imageFixture('a4-page.png'), {
          languages: both,
          signal: controller.signal,
        });
        await waitFor(() => single.stats().busy === 1);
        controller.abort();
        await expectParseError(page, 'aborted');
        // tesseract.js cannot cancel a job: only terminating its thread stops the computation.
        await waitFor(() => single.stats().size === 0);

        const next = await single.recognize(imageFixture('english.png'), { languages: both, signal: live() });
        expect(next.text).to.match(/library/i);
      } finally {
        await single.close();
      }
    });
    it('maps an abort with AbortSignal.timeout() to a timeout', async () => {
      await expectParseError(
        ocr.recognize(imageFixture('a4-page.png'), { languages: both, signal: AbortSignal.timeout(300) }),
        'timeout',
      );
    });

    it('gives up after its own per-call timeout with a timeout error and keeps serving', async () => {
      // The timers are the test's: the second call's runs out while it is busy, the others never do.
      const timers: Array<() => void> = [];
      const hasty = createTesseractOcr({
        workers: 1,
        timeoutMs: 1500,
        startTimer: (onTimeout) => {
          timers.push(onTimeout);
          return () => undefined;
        },
      });
      try {
        await hasty.recognize(imageFixture('english.png'), { languages: both, signal: live() });
        const page = hasty.recognize(imageFixture('a4-page.png'), { languages: both, signal: live() });
        await waitFor(() => hasty.stats().busy === 1 && timers.length === 2);
        timers[1]!();
        const error = await expectParseError(page, 'timeout');
        expect(error.message).to.match(/1500 ms/);
        await waitFor(() => hasty.stats().size === 0);
        const next = await hasty.recognize(imageFixture('english.png'), { languages: both, signal: live() });
        expect(next.text).to.match(/library/i);
      } finally {
        await hasty.close();
      }
    });

    it('withdraws a queued call on abort without touching the busy worker', async () => {
      const single = createTesseractOcr({ workers: 1 });
      try {
        const first = single.recognize(imageFixture('english.jpg'), { languages: both, signal: live() });
        await waitFor(() => single.stats().size === 1);
        const controller = new AbortController();
        const queued = single.recognize(imageFixture('english.png'), {
          languages: both,
          signal: controller.signal,
        });
        await waitFor(() => single.stats().waiting === 1);
        controller.abort();
        await expectParseError(queued, 'aborted');
        expect(single.stats().waiting).to.equal(0);
        expectWords((await first).text, ['Quarterly', 'revenue']);
      } finally {
        await single.close();
      }
    });
  });

  describe('worker pool', () => {
    it('starts no worker before the first call and at most `workers` under load', async () => {
      const pool = createTesseractOcr({ workers: 2 });
      try {
        expect(pool.stats().size).to.equal(0);
        const calls = ['english.png', 'english.jpg', 'text-24bit.bmp'].map((name) =>
          pool.recognize(imageFixture(name), { languages: both, signal: live() }),
        );
        await waitFor(() => pool.stats().waiting === 1);
        expect(pool.stats()).to.include({ size: 2, waiting: 1 });
        const results = await Promise.all(calls);
        expect(results.map((result) => /library|revenue|bitmap/i.test(result.text))).to.deep.equal([
          true,
          true,
          true,
        ]);
        expect(pool.stats()).to.include({ size: 2, idle: 2, busy: 0 });
      } finally {
        await pool.close();
      }
    });

    it('terminates idle workers after idleMs', async () => {
      const pool = createTesseractOcr({ workers: 1, idleMs: 200 });
      try {
        await pool.recognize(imageFixture('transparent.png'), { languages: both, signal: live() });
        expect(pool.stats().size).to.equal(1);
        await waitFor(() => pool.stats().size === 0);
        const again = await pool.recognize(imageFixture('transparent.png'), {
          languages: both,
          signal: live(),
        });
        expect(again.text).to.match(/Transparent/);
      } finally {
        await pool.close();
      }
    });

    it('close() ends running work with aborted and refuses new work', async () => {
      const pool = createTesseractOcr({ workers: 1 });
      const running = expectParseError(
        pool.recognize(imageFixture('a4-page.png'), { languages: both, signal: live() }),
        'aborted',
      );
      await waitFor(() => pool.stats().busy === 1);
      await pool.close();
      await running;
      expect(pool.stats().size).to.equal(0);
      await expectParseError(
        pool.recognize(imageFixture('english.png'), { languages: both, signal: live() }),
        'aborted',
      );
    });
  });

  describe('offline', () => {
    const supportDir = fileURLToPath(new URL('./support/', import.meta.url));
    const guard = networkGuardImport();

    it('reads traineddata from a local folder holding both languages', () => {
      expect(isAbsolute(ocr.langPath)).to.equal(true);
      expect(ocr.langPath).not.to.match(/^[a-z]+:\/\//i);
      for (const language of both) {
        const file = join(ocr.langPath, `${language}.traineddata.gz`);
        expect(existsSync(file), file).to.equal(true);
        expect(realpathSync(file)).to.equal(realpathSync(packagedTraineddata(language)));
        expect(statSync(file).size).to.be.greaterThan(1_000_000);
      }
    });

    it('recognises text in a child process where every network call is trapped, and none is made', async () => {
      const { stdout, stderr } = await run(
        process.execPath,
        ['--import', 'tsx', '--import', guard, join(supportDir, 'offlineOcr.ts')],
        { timeout: 30_000 },
      );
      expect(stderr).to.match(/network guard active \(worker thread\)/);
      expect(stderr).not.to.match(/NETWORK-ATTEMPT/);
      const result = JSON.parse(stdout) as { langPath: string; text: string };
      expect(existsSync(result.langPath)).to.equal(true);
      expectWords(result.text, ['library', 'morning', 'newspapers']);
    });

    it('(control) the trap does catch tesseract.js fetching traineddata when langPath is a URL', async () => {
      const { stderr } = await run(
        process.execPath,
        ['--import', 'tsx', '--import', guard, join(supportDir, 'remoteLangPath.ts')],
        { timeout: 30_000 },
      );
      expect(stderr).to.match(
        /NETWORK-ATTEMPT fetch https:\/\/cdn\.example\.invalid\/tessdata\/eng\.traineddata/,
      );
    });
  });
});
