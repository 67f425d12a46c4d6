import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { buildZip } from '../parsing/office/zipWriter.js';
import { documentSweeper, uniqueFileName, uniqueName, uniqueUpload } from '../support/cluster.js';
import { filesContaining } from '../support/filesContaining.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'documents', 'text');
/** A text fixture's bytes, with a last line of their own in cluster mode (see uniqueUpload). */
const fixture = async (name: string): Promise<Buffer> =>
  uniqueUpload(name, await readFile(join(fixtures, name))).bytes;
/** What the knowledge base lists: nothing in a fresh app, every suite's documents in a cluster. */
const documentCount = async (app: TestApp): Promise<number> =>
  (await app.http.get('/api/v1/documents').expect(200)).body.total as number;

describe('ZIP upload', () => {
  let app: TestApp;
  const stored = documentSweeper();
  beforeEach(async () => {
    app = await startTestApp({
      env: { ZIP_MAX_ENTRIES: '20', ZIP_MAX_TOTAL_BYTES: '2000000', ZIP_MAX_RATIO: '50' },
    });
  });
  afterEach(async () => {
    await stored.sweep((docId) => app.http.delete(`/api/v1/documents/${docId}`).expect(200));
    await app.stop();
  });

  const zipOf = async (entries: Record<string, Buffer | string>): Promise<Buffer> =>
    buildZip(Object.entries(entries).map(([name, data]) => ({ name, data })));

  it('ingests every supported file, reports skipped entries, and keeps folders apart in upload paths', async () => {
    const archive = await zipOf({
      'docs/readme.md': await fixture('readme.md'),
      'docs/report.txt': await fixture('report.txt'),
      'other/guide.rst': await fixture('guide.rst'),
      'inner.zip': await zipOf({ 'x.txt': 'nested' }),
      'tool.exe': 'MZ',
      '__MACOSX/docs/._readme.md': 'junk',
    });
    const section = uniqueName('kb');
    const response = await app.http
      .post('/api/v1/upload/bulk/zip')
      .attach('file', archive, 'docs.zip')
      .field('section', section)
      .expect(200);
    stored.keep(response.body);
    expect(response.body).to.include({ total_files: 3, successful: 3, failed: 0, duplicates: 0 });
    expect(response.body.skipped).to.deep.equal([
      { name: 'inner.zip', reason: 'nested archives are not extracted' },
      { name: 'tool.exe', reason: 'unsupported file type' },
    ]);
    const sources = (await app.http.get('/api/v1/documents/sources').expect(200)).body.sources as string[];
    expect(sources.filter((source) => source.startsWith(`${section}/`))).to.deep.equal([
      `${section}/docs/readme.md`,
      `${section}/docs/report.txt`,
      `${section}/other/guide.rst`,
    ]);
  });

  it('refuses a decompression bomb without inflating it', async () => {
    const before = await documentCount(app);
    const bomb = await zipOf({ 'zeros.txt': Buffer.alloc(5_000_000) });
    const response = await app.http
      .post('/api/v1/upload/bulk/zip')
      .attach('file', bomb, 'bomb.zip')
      .expect(413);
    expect(response.body.error).to.equal('archive_too_large');
    expect(await documentCount(app)).to.equal(before);
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

/** Every file name under `dir`, recursively. */
function fileNamesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

describe('ZIP upload: entry names and nested archives', () => {
  // DATA_DIR sits alone in a folder of the test's own, so that anything written beside it shows.
  let outside: string;
  let dataDir: string;
  let app: TestApp;
  const stored = documentSweeper();
  beforeEach(async () => {
    outside = await mkdtemp(join(tmpdir(), 'archivist-zip-'));
    dataDir = join(outside, 'data');
    await mkdir(dataDir);
    app = await startTestApp({ env: { DATA_DIR: dataDir } });
  });
  afterEach(async () => {
    await stored.sweep((docId) => app.http.delete(`/api/v1/documents/${docId}`).expect(200));
    await app.stop();
    await rm(outside, { recursive: true, force: true });
  });

  const EVIL = '# Evil\n\nMarker 7f3c9e2a: written where it should not be.';
  const GOOD = '# Otters\n\nOtters hold hands while they sleep so that they do not drift apart.';
  /** Text to store, with a last line of its own in cluster mode (see uniqueUpload). */
  const text = (name: string, content: string): Buffer => uniqueUpload(name, Buffer.from(content)).bytes;

  // As docs/api-notes.md decides: an archive naming a path outside itself is refused as a whole
  // (422 invalid_archive), before anything is inflated, so its other entries are not stored either.
  for (const [name, reported] of [
    ['../evil.md', '../evil.md'],
    ['/abs/evil.md', '/abs/evil.md'],
    ['a/../../evil.md', 'a/../../evil.md'],
    ['..\\evil.md', '../evil.md'],
  ] as const) {
    it(`refuses an archive with the entry ${name}, stores nothing and writes nothing outside DATA_DIR`, async () => {
      const before = await documentCount(app);
      const archive = buildZip([
        { name: 'notes/otters.md', data: GOOD },
        { name, data: EVIL },
      ]);
      const response = await app.http
        .post('/api/v1/upload/bulk/zip')
        .attach('file', archive, 'evil.zip')
        .expect(422);
      expect(response.body).to.include({ error: 'invalid_archive', status_code: 422 });
      expect(response.body.detail).to.include(reported);
      expect(response.body.detail).to.match(/invalid relative path|absolute path/);

      expect(await documentCount(app)).to.equal(before);
      expect(readdirSync(outside)).to.deep.equal(['data']);
      expect(fileNamesUnder(outside)).to.not.include('evil.md');
      expect(filesContaining(outside, 'Marker 7f3c9e2a')).to.deep.equal([]);
      expect(existsSync('/abs/evil.md')).to.equal(false);
      expect(existsSync(join(process.cwd(), '..', 'evil.md'))).to.equal(false);
    });
  }

  it('stores entries with . and empty segments under a clean upload path', async () => {
    const archive = buildZip([
      { name: './docs/./otters.md', data: text('otters.md', GOOD) },
      {
        name: 'docs//report.txt',
        data: text('report.txt', 'Report. The weir was cleared of debris in May.'),
      },
    ]);
    const section = uniqueName('kb');
    const response = await app.http
      .post('/api/v1/upload/bulk/zip')
      .attach('file', archive, 'dots.zip')
      .field('section', section)
      .expect(200);
    stored.keep(response.body);
    expect(response.body).to.include({ total_files: 2, successful: 2, failed: 0 });
    const sources = (await app.http.get('/api/v1/documents/sources').expect(200)).body.sources as string[];
    expect(sources.filter((source) => source.startsWith(`${section}/`))).to.have.members([
      `${section}/docs/otters.md`,
      `${section}/docs/report.txt`,
    ]);
    expect(readdirSync(outside)).to.deep.equal(['data']);
  });

  it('reports a ZIP inside the ZIP as skipped and extracts nothing from it', async () => {
    const inner = buildZip([
      { name: 'secret.md', data: '# Secret\n\nThe nested archive says zebra-quokka.' },
    ]);
    const otters = uniqueFileName('otters.md');
    const archive = buildZip([
      { name: otters, data: text(otters, GOOD) },
      { name: 'archives/inner.zip', data: inner },
    ]);
    const before = await app.http.get('/api/v1/documents/sources').expect(200);
    const response = await app.http
      .post('/api/v1/upload/bulk/zip')
      .attach('file', archive, 'outer.zip')
      .expect(200);
    stored.keep(response.body);
    expect(response.body).to.include({ total_files: 1, successful: 1, failed: 0, duplicates: 0 });
    expect(response.body.results.map((result: { filename: string }) => result.filename)).to.deep.equal([
      otters,
    ]);
    expect(response.body.skipped).to.deep.equal([
      { name: 'archives/inner.zip', reason: 'nested archives are not extracted' },
    ]);
    const sources = (await app.http.get('/api/v1/documents/sources').expect(200)).body.sources;
    expect(sources).to.deep.equal([...(before.body.sources as string[]), `uploaded/${otters}`].sort());
    const search = await app.http.post('/api/v1/search').send({ query: 'zebra-quokka' }).expect(200);
    for (const result of search.body.results as Array<{ text: string }>)
      expect(result.text).to.not.include('zebra-quokka');
    expect(fileNamesUnder(outside)).to.not.include('secret.md');
  });
});
