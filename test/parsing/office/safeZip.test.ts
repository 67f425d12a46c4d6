import { expect } from 'chai';
import { inflateRawSync } from 'node:zlib';
import { openSafeZip } from '../../../src/parsing/office/safeZip.js';
import { expectParseError } from '../expectParseError.js';
import { context, fixture } from './helpers.js';
import { buildZip, deflatedZeros } from './zipWriter.js';

const GiB = 1024 * 1024 * 1024;
const MiB = 1024 * 1024;

/** Runs a rejection and checks it was fast and cheap: the point of the limits is that bombs cost nothing. */
async function quickly<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; rssGrowthMb: number }> {
  const rssBefore = process.memoryUsage().rss;
  const start = performance.now();
  const value = await work();
  return {
    value,
    ms: performance.now() - start,
    rssGrowthMb: (process.memoryUsage().rss - rssBefore) / MiB,
  };
}

describe('safeZip', () => {
  it('lists the parts of a DOCX made by LibreOffice and inflates one of them', async () => {
    const zip = await openSafeZip(fixture('report.docx'), context('report.docx'));
    expect(zip.names).to.include.members(['word/document.xml', 'word/styles.xml', 'word/media/image1.png']);
    expect(zip.has('WORD/Document.xml')).to.equal(true, 'part names are case-insensitive');
    const xml = (await zip.read('word/document.xml'))?.toString('utf8') ?? '';
    expect(xml).to.match(/^<\?xml/);
    expect(xml).to.include('Quarterly Field Report');
    expect(zip.bytesInflated).to.equal(Buffer.byteLength(xml));
    expect(await zip.read('word/missing.xml')).to.equal(null);
  });

  it('builds test bombs that really inflate to zeros (sanity check of the generator)', () => {
    const bomb = deflatedZeros(4 * MiB);
    const inflated = inflateRawSync(bomb.bytes);
    expect(inflated.length).to.equal(4 * MiB);
    expect(inflated.every((byte) => byte === 0)).to.equal(true);
    expect(deflatedZeros(GiB).bytes.length).to.be.below(2 * MiB);
  });

  it('refuses an honest 1 GiB entry before inflating a byte (too_large)', async () => {
    const bytes = buildZip([{ name: 'word/document.xml', deflated: deflatedZeros(GiB) }]);
    const { value: zip } = await quickly(() => openSafeZip(bytes, context('bomb.docx')));
    const {
      value: error,
      ms,
      rssGrowthMb,
    } = await quickly(() => expectParseError(zip.read('word/document.xml'), 'too_large'));
    expect(error.message).to.match(/would inflate to 1073741824 bytes/);
    expect(zip.bytesInflated).to.equal(0);
    expect(ms).to.be.below(250);
    expect(rssGrowthMb).to.be.below(64);
  });

  it('refuses an entry whose compression ratio is over the limit, though under the size budget', async () => {
    const bytes = buildZip([{ name: 'xl/worksheets/sheet1.xml', deflated: deflatedZeros(64 * MiB) }]);
    const zip = await openSafeZip(bytes, context('ratio.xlsx'));
    const error = await expectParseError(zip.read('xl/worksheets/sheet1.xml'), 'too_large');
    expect(error.message).to.match(/expands \d+:1, over the 200:1 limit/);
    expect(zip.bytesInflated).to.equal(0);
  });

  it('stops an entry whose headers claim 1 KiB but which inflates to 1 GiB (corrupt_document)', async () => {
    const bytes = buildZip([{ name: 'word/document.xml', deflated: deflatedZeros(GiB), declaredSize: 1024 }]);
    const zip = await openSafeZip(bytes, context('liar.docx'));
    const {
      value: error,
      ms,
      rssGrowthMb,
    } = await quickly(() => expectParseError(zip.read('word/document.xml'), 'corrupt_document'));
    expect(error.message).to.match(/larger than its ZIP header says|does not match the size/);
    expect(zip.bytesInflated).to.be.below(MiB);
    expect(ms).to.be.below(500);
    expect(rssGrowthMb).to.be.below(64);
  });

  it('refuses an entry that is shorter than its headers claim', async () => {
    const bytes = buildZip([{ name: 'a.xml', data: 'short', declaredSize: 500 }]);
    const zip = await openSafeZip(bytes, context('short.docx'));
    await expectParseError(zip.read('a.xml'), 'corrupt_document');
  });

  it('counts every read against the total budget', async () => {
    const part = 'x'.repeat(600);
    const bytes = buildZip([
      { name: 'a.xml', data: part },
      { name: 'b.xml', data: part },
    ]);
    const zip = await openSafeZip(bytes, context('budget.docx', { limits: { maxUncompressedBytes: 1000 } }));
    expect((await zip.read('a.xml'))?.length).to.equal(600);
    await expectParseError(zip.read('b.xml'), 'too_large');
  });

  it('shares one budget between reads running side by side (checked while inflating)', async () => {
    const part = 'y'.repeat(600);
    const bytes = buildZip([
      { name: 'a.xml', data: part },
      { name: 'b.xml', data: part },
    ]);
    const zip = await openSafeZip(
      bytes,
      context('parallel.docx', { limits: { maxUncompressedBytes: 1000 } }),
    );
    const results = await Promise.allSettled([zip.read('a.xml'), zip.read('b.xml')]);
    expect(results.map((r) => r.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected?.reason).to.have.property('code', 'too_large');
  });

  it('refuses an archive with 100,000 entries before listing them (too_complex)', async () => {
    const entries = Array.from({ length: 100_000 }, (_, i) => ({
      name: `word/media/p${i}.xml`,
      data: '',
      method: 0,
    }));
    const bytes = buildZip(entries);
    const { value: error, ms } = await quickly(() =>
      expectParseError(openSafeZip(bytes, context('many.docx')), 'too_complex'),
    );
    expect(error.message).to.match(/100000 entries; at most 20000/);
    expect(ms).to.be.below(250);
  });

  for (const name of [
    '../evil.xml',
    'word/../../evil.xml',
    '/etc/passwd',
    '..\\..\\evil.xml',
    'C:/evil.xml',
  ]) {
    it(`refuses the unsafe entry name ${name} (corrupt_document)`, async () => {
      const bytes = buildZip([
        { name: 'word/document.xml', data: '<w:document/>' },
        { name, data: 'owned' },
      ]);
      const error = await expectParseError(openSafeZip(bytes, context('path.docx')), 'corrupt_document');
      expect(error.message).to.match(/path|fileName/);
    });
  }

  it('refuses an archive with an encrypted entry (encrypted_document)', async () => {
    const bytes = buildZip([{ name: 'word/document.xml', data: '<w:document/>', flags: 0x1 }]);
    await expectParseError(openSafeZip(bytes, context('locked.docx')), 'encrypted_document');
  });

  it('refuses two entries with the same name, which different readers resolve differently', async () => {
    const bytes = buildZip([
      { name: 'word/document.xml', data: '<a/>' },
      { name: 'word/document.xml', data: '<b/>' },
    ]);
    await expectParseError(openSafeZip(bytes, context('twice.docx')), 'corrupt_document');
  });

  it('refuses an unknown compression method', async () => {
    const bytes = buildZip([{ name: 'word/document.xml', data: 'abc', method: 12 }]);
    await expectParseError(openSafeZip(bytes, context('bzip.docx')), 'corrupt_document');
  });

  it('turns garbage and a truncated archive into corrupt_document, and zero bytes into empty_document', async () => {
    await expectParseError(
      openSafeZip(Buffer.from('this is not a zip file at all'), context('x.docx')),
      'corrupt_document',
    );
    const real = fixture('report.docx');
    await expectParseError(
      openSafeZip(real.subarray(0, real.length - 40), context('cut.docx')),
      'corrupt_document',
    );
    await expectParseError(openSafeZip(new Uint8Array(0), context('empty.docx')), 'empty_document');
  });

  it('reports corrupt deflate data as corrupt_document', async () => {
    const bytes = buildZip([
      { name: 'a.xml', deflated: { bytes: Buffer.from([0xff, 0xff, 0xff, 0xff]), size: 10 } },
    ]);
    const zip = await openSafeZip(bytes, context('bad.docx'));
    await expectParseError(zip.read('a.xml'), 'corrupt_document');
  });

  it('stops inflating when the caller aborts', async () => {
    const controller = new AbortController();
    const bytes = buildZip([{ name: 'big.xml', deflated: deflatedZeros(256 * MiB) }]);
    const ctx = context('big.docx', { signal: controller.signal, limits: { maxCompressionRatio: 10_000 } });
    const zip = await openSafeZip(bytes, ctx);
    const reading = zip.read('big.xml');
    setImmediate(() => controller.abort());
    const { ms } = await quickly(() => expectParseError(reading, 'aborted'));
    expect(zip.bytesInflated).to.be.below(256 * MiB);
    expect(ms).to.be.below(1000);
    await expectParseError(zip.read('big.xml'), 'aborted');
  });

  it('rejects input over maxInputBytes without opening it', async () => {
    await expectParseError(
      openSafeZip(fixture('report.docx'), context('report.docx', { limits: { maxInputBytes: 100 } })),
      'too_large',
    );
  });
});
