import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { reserve } from '../../src/commands/reservation.js';
import { SOURCE_RESERVATION } from '../../src/knowledge/ingest.js';
import {
  clusterMode,
  documentSweeper,
  uniqueFileName,
  uniqueName,
  uniqueUpload,
} from '../support/cluster.js';
import { eventually, startTestApp, type TestApp } from '../support/testApp.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'documents', 'text');
/** A text fixture under its name, or (cluster mode) under a name and with a last line of its own. */
const fixture = async (name: string): Promise<{ name: string; bytes: Buffer }> =>
  uniqueUpload(name, await readFile(join(fixtures, name)));

interface Corpus {
  total: number;
  sources: string[];
  byLanguage: Record<string, number>;
}

describe('knowledge base over HTTP', () => {
  let app: TestApp;
  const stored = documentSweeper();
  beforeEach(async () => {
    app = await startTestApp();
  });
  afterEach(async () => {
    await stored.sweep((docId) => app.http.delete(`/api/v1/documents/${docId}`).expect(200));
    await app.stop();
  });

  const upload = async (name: string, bytes: Buffer, fields: Record<string, string> = {}) => {
    let request = app.http.post('/api/v1/upload').attach('file', bytes, name);
    for (const [key, value] of Object.entries(fields)) request = request.field(key, value);
    const response = await request.expect(200);
    return stored.keep(response.body as Record<string, unknown>);
  };
  /** What the knowledge base holds before the test: nothing in a fresh app, every suite's in a cluster. */
  const corpus = async (): Promise<Corpus> => {
    const stats = (await app.http.get('/api/v1/documents/stats').expect(200)).body;
    return {
      total: stats.total_documents as number,
      sources: Object.keys(stats.by_source as Record<string, number>),
      byLanguage: stats.by_language as Record<string, number>,
    };
  };
  const documentCount = async (): Promise<number> =>
    (await app.http.get('/api/v1/documents').expect(200)).body.total as number;

  it('ingests an upload, finds it by search, answers from it with a numbered source, and lists it', async () => {
    const before = await corpus();
    const readme = await fixture('readme.md');
    const source = `guides/${readme.name}`;
    const result = await upload(readme.name, readme.bytes, { section: 'guides' });
    expect(result).to.include({
      success: true,
      filename: readme.name,
      title: 'Riverwatch Toolkit',
      chunks_updated: 0,
      chunks_skipped: 0,
      error: null,
      is_duplicate: false,
      duplicate_type: null,
    });
    expect(result['chunks_added']).to.be.a('number').greaterThan(0);
    const docId = result['doc_id'] as string;

    // Read-your-writes: the very next search sees the document, through both retrievers.
    const search = await app.http
      .post('/api/v1/search')
      .send({ query: 'river bank erosion volunteers' })
      .expect(200);
    expect(search.body.count).to.be.greaterThan(0);
    expect(search.body.results[0]).to.include({ doc_id: docId, source });
    expect(search.body.results[0].metadata).to.include({ title: 'Riverwatch Toolkit', section: 'guides' });
    expect(search.body.results[0].text).to.match(/erosion/);
    // Each result says where to look: an excerpt around the query's words, with its offsets.
    const first = search.body.results[0] as {
      text: string;
      excerpt: { text: string; start: number; end: number };
    };
    expect(first.text.slice(first.excerpt.start, first.excerpt.end)).to.equal(first.excerpt.text);
    expect(first.excerpt.text).to.match(/erosion/i);

    const query = await app.http
      .post('/api/v1/query')
      .send({ question: 'Where does the configuration file live?', include_context: true })
      .expect(200);
    expect(query.body.question).to.equal('Where does the configuration file live?');
    expect(query.body.answer).to.match(/config\.toml/);
    expect(query.body.abstained).to.equal(false);
    expect(query.body.answer).to.match(/\[\d\]/);
    expect(query.body.sources[0]).to.include({
      doc_id: docId,
      title: 'Riverwatch Toolkit',
      section: 'guides',
      page_start: 1,
      page_end: 1,
    });
    // Every source is a passage a reader can check: its chunk, section path and an excerpt of it.
    const sources = query.body.sources as Array<{
      chunk_id: string;
      section_path: string[];
      excerpt: { text: string; start: number; end: number };
    }>;
    expect(new Set(sources.map((item) => item.chunk_id)).size).to.equal(sources.length);
    const configured = sources.find((item) => /config\.toml/.test(item.excerpt.text));
    expect(configured, 'a source quoting config.toml').to.not.equal(undefined);
    expect(configured!.section_path.length).to.be.greaterThan(0);
    expect(configured!.excerpt.text.length).to.be.within(1, 200);
    expect(configured!.excerpt.end - configured!.excerpt.start).to.equal(configured!.excerpt.text.length);
    expect(query.body.context_used).to.include('Question: Where does the configuration file live?');
    // A question the document does not answer: said so, flagged, with the nearest passages as sources.
    const unanswered = await app.http
      .post('/api/v1/query')
      .send({ question: 'Which chess opening did Kasparov prefer in 1985?' })
      .expect(200);
    expect(unanswered.body).to.include({
      answer: 'I could not find this in the documents.',
      abstained: true,
    });
    for (const field of [
      'embedding',
      'vector_search',
      'reranking',
      'retrieval_total',
      'context_formatting',
      'llm_generation',
      'total',
    ])
      expect(query.body.timing[field], field).to.be.a('number').at.least(0);

    const list = await app.http.get('/api/v1/documents').expect(200);
    const total = before.total + 1;
    expect(list.body).to.include({ total, page: 1, page_size: 20, pages: Math.ceil(total / 20) });
    expect(list.body.documents[0].metadata).to.include({
      title: 'Riverwatch Toolkit',
      source,
      section: 'guides',
      language: 'en',
    });
    const one = await app.http.get(`/api/v1/documents/${docId}`).expect(200);
    expect(one.body.text).to.include('Installation');
    expect((await app.http.get('/api/v1/documents/sources').expect(200)).body).to.deep.equal({
      sources: [...before.sources, source].sort(),
      count: before.sources.length + 1,
    });
    const stats = (await app.http.get('/api/v1/documents/stats').expect(200)).body;
    expect(stats).to.include({ total_documents: total });
    expect(stats.by_source[source]).to.equal(1);
    expect(stats.by_language).to.deep.equal({ ...before.byLanguage, en: (before.byLanguage['en'] ?? 0) + 1 });
    if (!clusterMode()) {
      expect(stats).to.deep.equal({
        total_documents: 1,
        by_source: { 'guides/readme.md': 1 },
        by_language: { en: 1 },
      });
    }
  });

  it('cites the FAQ section that holds the answer, though the chunker merged it with its siblings, and abstains on what the FAQ does not say', async () => {
    const faq = [
      '<html><head><title>Quillmoth FAQ</title></head><body>',
      '<h1>Chapter 1. Quillmoth basics</h1>',
      '<h2>1.1. What is Quillmoth?</h2><p>Quillmoth is a note-taking tool for field biologists.</p>',
      '<h2>1.2. Who maintains Quillmoth?</h2><p>A volunteer team keeps it alive, with releases twice a year.</p>',
      '<h2>1.3. How does one pronounce Quillmoth?</h2><p>The name is said kwill-moth, with the stress on kwill. It comes from an old nickname.</p>',
      '<h2>1.4. Where are the notes kept?</h2><p>Every note lives in a plain folder under your home directory.</p>',
      '</body></html>',
    ].join('\n');
    await upload(uniqueFileName('quillmoth-faq.html'), Buffer.from(faq));

    const answered = await app.http
      .post('/api/v1/query')
      .send({ question: 'How does one pronounce Quillmoth?' })
      .expect(200);
    expect(answered.body.abstained).to.equal(false);
    expect(answered.body.answer).to.match(/^The name is said kwill-moth, with the stress on kwill\. \[1\]/);
    const first = answered.body.sources[0] as { section_path: string[]; excerpt: { text: string } };
    // The chunk is named by its chapter; the citation names the section the quoted sentence is in.
    expect(first.section_path).to.deep.equal([
      'Chapter 1. Quillmoth basics',
      '1.3. How does one pronounce Quillmoth?',
    ]);
    expect(first.excerpt.text).to.include('The name is said kwill-moth');

    // The FAQ's own words are there (Quillmoth, releases), the asked fact is not.
    const unanswered = await app.http
      .post('/api/v1/query')
      .send({ question: 'Which Quillmoth release added the encrypted cloud sync?' })
      .expect(200);
    expect(unanswered.body).to.include({
      answer: 'I could not find this in the documents.',
      abstained: true,
    });
    expect(unanswered.body.sources.length).to.be.greaterThan(0);
  });

  it('detects duplicates by path and by content, and re-ingests with skip_duplicates false', async () => {
    const before = await documentCount();
    const readme = await fixture('readme.md');
    // Long enough for several chunks, so that an edit changes one and leaves the others.
    const notes = Array.from(
      { length: 90 },
      (_, i) => `Site RW-${i + 10} was surveyed on day ${i + 1}, and its bank held at marker ${i * 3}.`,
    ).join(' ');
    const { name } = readme;
    const bytes = Buffer.concat([readme.bytes, Buffer.from(`\n\n## Field notes\n\n${notes}\n`)]);
    const first = await upload(name, bytes);
    const samePath = await upload(name, bytes);
    expect(samePath).to.include({
      success: true,
      is_duplicate: true,
      duplicate_type: 'filepath',
      existing_doc_id: first['doc_id'],
      existing_doc_title: 'Riverwatch Toolkit',
      chunks_added: 0,
    });
    expect(samePath['duplicate_message']).to.match(/already holds this file path/);
    const sameContent = await upload(uniqueFileName('copy-of-readme.md'), bytes);
    expect(sameContent).to.include({
      is_duplicate: true,
      duplicate_type: 'content_hash',
      existing_doc_id: first['doc_id'],
    });

    const edited = Buffer.from(
      bytes.toString('utf8').replace('Run a survey for one site', 'Run one survey per site'),
    );
    const again = await upload(name, edited, { skip_duplicates: 'false' });
    expect(again).to.include({
      success: true,
      is_duplicate: false,
      doc_id: first['doc_id'],
      chunks_added: 0,
    });
    expect(again['chunks_updated']).to.be.greaterThan(0);
    expect(again['chunks_skipped']).to.be.greaterThan(0);
    expect((again['chunks_updated'] as number) + (again['chunks_skipped'] as number)).to.equal(
      first['chunks_added'],
    );
    expect(await documentCount()).to.equal(before + 1);
  });

  it("keeps same-named files of two folders apart by the upload's path field", async () => {
    const folder = uniqueFileName('handbook.d').replace(/\.d$/, '');
    const first = await upload(
      'README.md',
      Buffer.from(`# Ferry Times ${folder}\n\nThe ferry leaves at six.\n`),
      {
        path: `${folder}/ferry/README.md`,
      },
    );
    const second = await upload(
      'README.md',
      Buffer.from(`# Bell Rules ${folder}\n\nRing the bell twice.\n`),
      {
        path: `${folder}/../${folder}/bell/./README.md`,
      },
    );
    expect(first).to.include({ success: true, is_duplicate: false });
    expect(second).to.include({ success: true, is_duplicate: false });
    const sourceOf = async (docId: unknown) =>
      (
        (await app.http.get(`/api/v1/documents/${String(docId)}`).expect(200)).body as {
          metadata: { source: string };
        }
      ).metadata.source;
    expect(await sourceOf(first['doc_id'])).to.equal(`uploaded/${folder}/ferry/README.md`);
    // '..' and '.' segments are dropped, never followed.
    expect(await sourceOf(second['doc_id'])).to.equal(`uploaded/${folder}/${folder}/bell/README.md`);
  });

  it('makes one document of concurrent uploads of the same file: the others wait for it and are its duplicates', async () => {
    const before = await documentCount();
    const { name, bytes } = await fixture('report.txt');
    const results = await Promise.all(Array.from({ length: 6 }, () => upload(name, bytes)));
    const stored = results.filter((result) => result['is_duplicate'] === false);
    expect(stored).to.have.lengthOf(1);
    expect(stored[0]).to.include({ success: true });
    for (const duplicate of results.filter((result) => result['is_duplicate'] === true)) {
      expect(duplicate).to.include({
        duplicate_type: 'filepath',
        existing_doc_id: stored[0]!['doc_id'],
        existing_doc_title: stored[0]!['title'],
      });
    }
    expect(await documentCount()).to.equal(before + 1);
  });

  it('makes one document of concurrent uploads of the same content under two names: the other is its content duplicate', async () => {
    const before = await documentCount();
    const { bytes } = await fixture('report.txt');
    const [a, b] = [uniqueFileName('a.md'), uniqueFileName('b.md')];
    const results = await Promise.all([upload(a, bytes), upload(b, bytes)]);
    const stored = results.filter((result) => result['is_duplicate'] === false);
    const duplicates = results.filter((result) => result['is_duplicate'] === true);
    expect(stored).to.have.lengthOf(1);
    expect(duplicates).to.have.lengthOf(1);
    expect(stored[0]).to.include({ success: true, duplicate_type: null });
    expect(stored[0]!['doc_id']).to.be.a('string').and.not.empty;
    expect(stored[0]!['chunks_added']).to.be.greaterThan(0);
    expect(duplicates[0]).to.include({
      success: true,
      doc_id: null,
      chunks_added: 0,
      duplicate_type: 'content_hash',
      existing_doc_id: stored[0]!['doc_id'],
      existing_doc_title: stored[0]!['title'],
    });
    expect(duplicates[0]!['filename']).to.equal(stored[0]!['filename'] === a ? b : a);
    const list = await app.http.get('/api/v1/documents').expect(200);
    expect(list.body.total).to.equal(before + 1);
    expect(list.body.documents).to.have.lengthOf(Math.min(before + 1, 20));
    expect(list.body.documents[0].id).to.equal(stored[0]!['doc_id']);
    expect(list.body.documents[0].metadata.source).to.equal(`uploaded/${stored[0]!['filename'] as string}`);
    // The loser gave its path back: uploading the other name again is a content duplicate, not a path one.
    const again = await upload(duplicates[0]!['filename'] as string, bytes);
    expect(again).to.include({ is_duplicate: true, duplicate_type: 'content_hash' });
  });

  it('takes over a claim on a path left by an ingestion that died long ago', async () => {
    const orphan = uniqueFileName('orphan.txt');
    const source = createHash('sha256').update(`uploaded/${orphan}`).digest('hex');
    await reserve(app.runtime.eventStore, SOURCE_RESERVATION, source, 'document-of-a-dead-worker', {
      now: '2020-01-01T00:00:00.000Z',
      actorId: 'worker-killed-mid-ingestion',
      correlationId: 'c',
    });
    const result = await upload(orphan, (await fixture('report.txt')).bytes);
    expect(result).to.include({ success: true, is_duplicate: false });
  });

  it('ingests OpenDocument uploads (.odt, .ods, .odp) and finds their text', async () => {
    const office = join(import.meta.dirname, '..', 'fixtures', 'documents', 'office');
    for (const [name, query] of [
      ['report.odt', 'laboratory within 24 hours'],
      ['workbook.ods', 'North & East provisional'],
      ['slides.odp', 'northern sampling site weather'],
    ] as const) {
      const file = uniqueUpload(name, await readFile(join(office, name)));
      const result = await upload(file.name, file.bytes, { section: 'odf' });
      expect(result, name).to.include({ success: true, filename: file.name, error: null });
      expect(result['chunks_added'], name).to.be.a('number').greaterThan(0);
      const search = await app.http.post('/api/v1/search').send({ query }).expect(200);
      expect(search.body.results[0], name).to.include({ source: `odf/${file.name}` });
    }
  });

  it('reports an unsupported or broken file with success false and stores nothing', async () => {
    const before = await documentCount();
    const unsupported = await upload(uniqueFileName('tool.exe'), Buffer.from('MZ...'));
    expect(unsupported).to.include({ success: false, doc_id: null, chunks_added: 0 });
    expect(unsupported['error']).to.match(/Unsupported file type \.exe/);
    const broken = await upload(
      uniqueFileName('broken.pdf'),
      Buffer.from('%PDF-1.7 this is not really a pdf'),
    );
    expect(broken).to.include({ success: false, doc_id: null });
    expect(broken['error']).to.be.a('string').and.not.empty;
    expect(await documentCount()).to.equal(before);
  });

  it('deletes a document from every index, frees its keys, and reports unknown ids as not_found', async () => {
    const vectors = await app.runtime.knowledge.vectorIndex().count();
    const readme = await fixture('readme.md');
    const first = await upload(readme.name, readme.bytes);
    const docId = first['doc_id'] as string;
    const deleted = await app.http.delete(`/api/v1/documents/${docId}`).expect(200);
    expect(deleted.body).to.deep.equal({ doc_id: docId, status: 'deleted', message: 'Document deleted' });
    await app.http.get(`/api/v1/documents/${docId}`).expect(404);
    const search = await app.http.post('/api/v1/search').send({ query: 'river bank erosion' }).expect(200);
    expect(search.body.results.map((result: { doc_id: string }) => result.doc_id)).to.not.include(docId);
    if (clusterMode()) {
      // Milvus counts the deletion once its segment is sealed: not at once, as an embedded index does.
      await eventually(async () =>
        (await app.runtime.knowledge.vectorIndex().count()) === vectors ? true : undefined,
      );
    } else {
      expect(await app.runtime.knowledge.vectorIndex().count()).to.equal(vectors);
    }
    const missing = await app.http.delete(`/api/v1/documents/${docId}`).expect(200);
    expect(missing.body.status).to.equal('not_found');

    // The path and content keys are free again (released by a reactor, or taken over from a deleted holder).
    const again = await upload(readme.name, readme.bytes);
    expect(again).to.include({ success: true, is_duplicate: false });
    expect(again['doc_id']).to.not.equal(docId);
  });

  it('deletes by id list, by source and by filter with consistent counts', async () => {
    const before = await documentCount();
    // Sections of the test's own: a deletion by filter in a cluster must not reach other suites' documents.
    const [one, two] = [uniqueName('one'), uniqueName('two')];
    const [readme, report, guide] = await Promise.all(['readme.md', 'report.txt', 'guide.rst'].map(fixture));
    const a = await upload(readme!.name, readme!.bytes, { section: one });
    await upload(report!.name, report!.bytes, { section: two });
    await upload(guide!.name, guide!.bytes, { section: two });
    const many = await app.http
      .post('/api/v1/documents/delete')
      .send({ doc_ids: [a['doc_id'], 'nope'] })
      .expect(200);
    expect(many.body).to.include({ deleted: 1, skipped: 1, errors: 0 });
    const bySource = await app.http
      .post('/api/v1/documents/delete/by-source')
      .send({ source: `${two}/${report!.name}` })
      .expect(200);
    expect(bySource.body).to.include({ deleted: 1, more: false });
    const byFilter = await app.http
      .post('/api/v1/documents/delete/by-filter')
      .send({ where: { section: two } })
      .expect(200);
    expect(byFilter.body).to.include({ deleted: 1 });
    expect(await documentCount()).to.equal(before);
    await app.http
      .post('/api/v1/documents/delete/by-filter')
      .send({ where: { owner: 'x' } })
      .expect(422);
  });

  it('bulk upload counts agree with the per-file results', async () => {
    const readme = await fixture('readme.md');
    const response = await app.http
      .post('/api/v1/upload/bulk')
      .attach('files', readme.bytes, readme.name)
      .attach('files', readme.bytes, readme.name)
      .attach('files', Buffer.from('x'), 'notes.exe')
      .expect(200);
    stored.keep(response.body);
    expect(response.body).to.include({ total_files: 3, successful: 2, duplicates: 1, failed: 1 });
    const results = response.body.results as Array<{ success: boolean; is_duplicate: boolean }>;
    expect(results).to.have.length(3);
    expect(response.body).to.include({
      successful: results.filter((result) => result.success).length,
      failed: results.filter((result) => !result.success).length,
      duplicates: results.filter((result) => result.is_duplicate).length,
    });
    expect(response.body.errors).to.have.length(1);
  });

  it('runs a bulk upload as one task whose result is the bulk result, each file a document of its own', async () => {
    const files = ['alpha', 'beta', 'gamma'].map((word) => ({
      name: `bulk-${word}.md`,
      bytes: Buffer.from(`# The ${word} note\n\nOnly the ${word} note says quokkabulk${word}.\n`),
    }));
    let request = app.http.post('/api/v1/upload/bulk').field('section', 'bulkone');
    for (const file of files) request = request.attach('files', file.bytes, file.name);
    const response = await request.expect(200);
    stored.keep(response.body);
    expect(response.body).to.include({ total_files: 3, successful: 3, failed: 0, duplicates: 0 });
    const results = response.body.results as Array<{ filename: string; doc_id: string }>;
    expect(results.map((result) => result.filename)).to.deep.equal(files.map((file) => file.name));
    expect(new Set(results.map((result) => result.doc_id)).size).to.equal(3);

    const tasks = (await app.http.get('/api/v1/tasks?limit=200').expect(200)).body.tasks as Array<{
      task_type: string;
      status: string;
      result: Record<string, unknown> | null;
    }>;
    const bulk = tasks.filter(
      (task) => task.task_type === 'ingest_bulk' && JSON.stringify(task.result).includes('bulk-alpha.md'),
    );
    expect(bulk).to.have.length(1);
    expect(bulk[0]).to.include({ status: 'completed' });
    expect(bulk[0]!.result).to.deep.equal(response.body);
    for (const [at, file] of files.entries()) {
      const word = ['alpha', 'beta', 'gamma'][at]!;
      const found = await app.http
        .post('/api/v1/search')
        .send({ query: `quokkabulk${word}` })
        .expect(200);
      expect(found.body.results[0]).to.include({ doc_id: results[at]!.doc_id });
      const document = await app.http.get(`/api/v1/documents/${results[at]!.doc_id}`).expect(200);
      expect(JSON.stringify(document.body)).to.include(`bulkone/${file.name}`);
    }
  });

  it('uploads asynchronously: a task whose result is the ingestion result', async () => {
    const arabic = await fixture('arabic.txt');
    const response = await app.http
      .post('/api/v1/upload/async')
      .attach('file', arabic.bytes, arabic.name)
      .expect(202);
    expect(response.body).to.include({ status: 'pending' });
    const taskId = response.body.task_id as string;
    const task = await eventually(
      async () => {
        const body = (await app.http.get(`/api/v1/tasks/${taskId}`).expect(200)).body;
        return body['status'] === 'completed' ? (body as Record<string, unknown>) : undefined;
      },
      10_000,
      'the upload task completed',
    );
    expect(task['result']).to.include({ success: true, filename: arabic.name, is_duplicate: false });
    stored.keep(task['result']);
    // Arabic search with other letter forms (hamza on alef, ta marbuta) finds it.
    const search = await app.http.post('/api/v1/search').send({ query: 'جوده المياه' }).expect(200);
    expect(search.body.results[0].metadata.language).to.equal('ar');
  });
});
