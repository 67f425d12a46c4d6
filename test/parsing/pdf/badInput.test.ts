import { expect } from 'chai';
import sharp from 'sharp';
import type { ParseContext } from '../../../src/parsing/context.js';
import { ParseError, type ParseErrorCode } from '../../../src/parsing/errors.js';
import { parsePdf, parsePdfIncremental } from '../../../src/parsing/pdf/index.js';
import { expectParseError } from '../expectParseError.js';
import { onePagePdf, pdfWithoutPages } from './handmadePdf.js';
import { fixture, pdfContext } from './pdfContext.js';

/** `parsePdf` of the bytes fails with `code`, within five seconds. */
async function expectCode(
  bytes: Uint8Array,
  code: ParseErrorCode,
  ctx: ParseContext = pdfContext('input.pdf'),
): Promise<void> {
  const started = performance.now();
  await expectParseError(parsePdf(bytes, ctx), code);
  expect(performance.now() - started).to.be.lessThan(5_000);
}

describe('parsePdf on bad input', () => {
  it('rejects a password-protected PDF as encrypted_document', async () => {
    await expectCode(fixture('encrypted.pdf'), 'encrypted_document');
  });

  for (const share of [0.1, 0.5, 0.9, 0.99]) {
    it(`rejects a PDF truncated to ${share * 100}% as corrupt_document`, async () => {
      const whole = fixture('report.pdf');
      await expectCode(whole.slice(0, Math.floor(whole.length * share)), 'corrupt_document');
    });
  }

  it('rejects garbage and a PNG named .pdf as corrupt_document', async () => {
    await expectCode(new TextEncoder().encode('this is not a PDF at all\n'.repeat(40)), 'corrupt_document');
    const png = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    await expectCode(new Uint8Array(png), 'corrupt_document', pdfContext('picture.pdf'));
  });

  it('rejects zero bytes, a PDF without pages and a PDF with one blank page as empty_document', async () => {
    await expectCode(new Uint8Array(0), 'empty_document');
    await expectCode(pdfWithoutPages(), 'empty_document');
    await expectCode(onePagePdf(''), 'empty_document');
  });

  it('parses a handmade single-page PDF with a standard font (the control for the cases above)', async () => {
    const doc = await parsePdf(
      onePagePdf('BT /F1 12 Tf 72 720 Td (Hello from a handmade page) Tj ET'),
      pdfContext('hand.pdf'),
    );
    expect(doc.blocks).to.deep.equal([{ type: 'paragraph', text: 'Hello from a handmade page', page: 1 }]);
    expect(doc.metadata.title).to.equal('hand');
  });

  it('rejects more pages than limits.maxPages as too_large before reading them', async () => {
    await expectCode(fixture('long.pdf'), 'too_large', pdfContext('long.pdf', { limits: { maxPages: 50 } }));
  });

  it('rejects input over limits.maxInputBytes and text over limits.maxTextChars as too_large', async () => {
    await expectCode(
      fixture('report.pdf'),
      'too_large',
      pdfContext('report.pdf', { limits: { maxInputBytes: 10_000 } }),
    );
    await expectCode(
      fixture('long.pdf'),
      'too_large',
      pdfContext('long.pdf', { limits: { maxTextChars: 20_000 } }),
    );
  });

  it('rejects a Flate bomb (65 KB inflating to 64 MB) as too_large, without inflating it into memory', async () => {
    const content = Buffer.alloc(64 * 1024 * 1024, 0x20);
    content.write('BT /F1 12 Tf 72 720 Td (boom) Tj ET\n', 0, 'latin1');
    const bomb = onePagePdf(content, true);
    expect(bomb.length).to.be.lessThan(100_000);
    const before = process.memoryUsage().rss;
    await expectCode(bomb, 'too_large');
    expect(process.memoryUsage().rss - before).to.be.lessThan(48 * 1024 * 1024);
  });

  it('still parses a highly compressible but small stream', async () => {
    const content = Buffer.alloc(2 * 1024 * 1024, 0x20);
    content.write('BT /F1 12 Tf 72 720 Td (mostly spaces) Tj ET\n', 0, 'latin1');
    const doc = await parsePdf(onePagePdf(content, true), pdfContext('spaces.pdf'));
    expect(doc.blocks).to.deep.equal([{ type: 'paragraph', text: 'mostly spaces', page: 1 }]);
  });

  it('stops with "aborted" when the signal is already aborted, and keeps a ParseError reason', async () => {
    const aborted = new AbortController();
    aborted.abort();
    await expectCode(fixture('report.pdf'), 'aborted', pdfContext('report.pdf', { signal: aborted.signal }));
    const timedOut = new AbortController();
    timedOut.abort(new ParseError('timeout', 'time budget spent'));
    await expectCode(fixture('report.pdf'), 'timeout', pdfContext('report.pdf', { signal: timedOut.signal }));
  });

  it('stops with "aborted" between pages when the caller goes away mid-document', async () => {
    const controller = new AbortController();
    const pages: number[] = [];
    await expectParseError(
      (async () => {
        for await (const item of parsePdfIncremental(
          fixture('long.pdf'),
          pdfContext('long.pdf', { signal: controller.signal }),
        )) {
          if (item.type !== 'page') continue;
          pages.push(item.page.number);
          if (item.page.number === 2) controller.abort();
        }
      })(),
      'aborted',
    );
    expect(pages).to.deep.equal([1, 2]);
  });
});
