import { readFileSync } from 'node:fs';
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { loadPdfjs } from '../../../src/parsing/pdf/pdfjs.js';

/** Everything a DecompressionStream of `format` gives for `input` written in `pieces`, or its error. */
async function decompress(
  format: 'deflate' | 'deflate-raw' | 'gzip',
  input: Buffer,
  pieces = 1,
): Promise<Buffer> {
  const { readable, writable } = new DecompressionStream(format);
  const writer = writable.getWriter();
  const step = Math.ceil(input.length / pieces);
  const writing = (async () => {
    for (let at = 0; at < input.length; at += step) await writer.write(input.subarray(at, at + step));
    await writer.close();
  })().catch(() => undefined);
  const out: Buffer[] = [];
  for await (const chunk of readable as AsyncIterable<Uint8Array>) out.push(Buffer.from(chunk));
  await writing;
  return Buffer.concat(out);
}

describe('DecompressionStream in a thread that loaded pdf.js', () => {
  const text = Buffer.from('BT /F1 12 Tf 72 720 Td (Hello) Tj ET\n'.repeat(2_000));

  before(async () => {
    await loadPdfjs();
  });

  it('inflates deflate data whole, however the input is cut, and stays a usable constructor', async () => {
    const compressed = deflateSync(text);
    expect(await decompress('deflate', compressed)).to.deep.equal(text);
    expect(await decompress('deflate', compressed, 7)).to.deep.equal(text);
    expect(await decompress('deflate', deflateSync(Buffer.alloc(0)))).to.deep.equal(Buffer.alloc(0));
  });

  it('errors on damaged or truncated deflate data, as the native one does (pdf.js then uses its own decoder)', async () => {
    const compressed = deflateSync(text);
    for (const bad of [compressed.subarray(0, compressed.length >> 1), Buffer.from('not deflate at all')]) {
      let failure: unknown;
      await decompress('deflate', bad).catch((error: unknown) => (failure = error));
      expect(failure).to.be.instanceOf(Error);
    }
  });

  it('leaves the other formats to the native implementation (file-type reads ZIP entries with deflate-raw)', async () => {
    expect(await decompress('deflate-raw', deflateRawSync(text), 3)).to.deep.equal(text);
    expect(await decompress('gzip', gzipSync(text))).to.deep.equal(text);
  });

  it('gives pdf.js the same page text and drawing as its own decoder does', async () => {
    const pdfjs = await loadPdfjs();
    const bytes = readFileSync(new URL('../../fixtures/documents/pdf/report.pdf', import.meta.url));
    const read = async (): Promise<string> => {
      const doc = await pdfjs.getDocument({
        data: new Uint8Array(bytes),
        verbosity: 0,
        isEvalSupported: false,
      }).promise;
      const page = await doc.getPage(1);
      const text = (await page.getTextContent()).items
        .map((item) => ('str' in item ? item.str : ''))
        .join('|');
      const ops = await page.getOperatorList();
      await doc.destroy();
      return `${text}\n${ops.fnArray.join(',')}`;
    };
    const replaced = await read();
    const installed = globalThis.DecompressionStream;
    // Without DecompressionStream pdf.js inflates with its own JavaScript decoder.
    Object.defineProperty(globalThis, 'DecompressionStream', {
      value: undefined,
      configurable: true,
      writable: true,
    });
    try {
      expect(replaced).to.equal(await read());
    } finally {
      Object.defineProperty(globalThis, 'DecompressionStream', {
        value: installed,
        configurable: true,
        writable: true,
      });
    }
    expect(replaced).to.match(/\w{4,}/);
  });
});
