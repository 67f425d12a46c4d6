import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import JSZip from 'jszip';
import { startTestApp, type TestApp } from '../support/testApp.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'documents', 'text');

describe('ZIP upload', () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await startTestApp({
      env: { ZIP_MAX_ENTRIES: '20', ZIP_MAX_TOTAL_BYTES: '2000000', ZIP_MAX_RATIO: '50' },
    });
  });
  afterEach(async () => app.stop());

  const zipOf = async (entries: Record<string, Buffer | string>): Promise<Buffer> => {
    const zip = new JSZip();
    for (const [name, data] of Object.entries(entries)) zip.file(name, data);
    return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
  };

  it('ingests every supported file, reports skipped entries, and keeps folders apart in upload paths', async () => {
    const readme = await readFile(join(fixtures, 'readme.md'));
    const archive = await zipOf({
      'docs/readme.md': readme,
      'docs/report.txt': await readFile(join(fixtures, 'report.txt')),
      'other/guide.rst': await readFile(join(fixtures, 'guide.rst')),
      'inner.zip': await zipOf({ 'x.txt': 'nested' }),
      'tool.exe': 'MZ',
      '__MACOSX/docs/._readme.md': 'junk',
    });
    const response = await app.http
      .post('/api/v1/upload/bulk/zip')
      .attach('file', archive, 'docs.zip')
      .field('section', 'kb')
      .expect(200);
    expect(response.body).to.include({ total_files: 3, successful: 3, failed: 0, duplicates: 0 });
    expect(response.body.skipped).to.deep.equal([
      { name: 'inner.zip', reason: 'nested archives are not extracted' },
      { name: 'tool.exe', reason: 'unsupported file type' },
    ]);
    const sources = (await app.http.get('/api/v1/documents/sources').expect(200)).body.sources;
    expect(sources).to.deep.equal(['kb/docs/readme.md', 'kb/docs/report.txt', 'kb/other/guide.rst']);
  });

  it('refuses a decompression bomb without inflating it', async () => {
    const bomb = await zipOf({ 'zeros.txt': Buffer.alloc(5_000_000) });
    const response = await app.http
      .post('/api/v1/upload/bulk/zip')
      .attach('file', bomb, 'bomb.zip')
      .expect(413);
    expect(response.body.error).to.equal('archive_too_large');
    expect((await app.http.get('/api/v1/documents').expect(200)).body.total).to.equal(0);
  });

  it('refuses too many entries, and a file that is not a ZIP archive', async () => {
    const many = await zipOf(
      Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${i}.txt`, `file ${i}`])),
    );
    const tooMany = await app.http
      .post('/api/v1/upload/bulk/zip')
      .attach('file', many, 'many.zip')
      .expect(413);
    expect(tooMany.body.detail).to.match(/25 entries/);
    const broken = await app.http
      .post('/api/v1/upload/bulk/zip')
      .attach('file', Buffer.from('PK not really'), 'broken.zip')
      .expect(422);
    expect(broken.body.error).to.equal('invalid_archive');
  });
});
