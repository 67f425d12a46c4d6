import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { reserve } from '../../src/commands/reservation.js';
import { SOURCE_RESERVATION } from '../../src/knowledge/ingest.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'documents', 'text');
const fixture = (name: string): Promise<Buffer> => readFile(join(fixtures, name));

describe('knowledge base over HTTP', () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await startTestApp();
  });
  afterEach(async () => app.stop());

  const upload = async (name: string, bytes: Buffer, fields: Record<string, string> = {}) => {
    let request = app.http.post('/api/v1/upload').attach('file', bytes, name);
    for (const [key, value] of Object.entries(fields)) request = request.field(key, value);
    const response = await request.expect(200);
    return response.body as Record<string, unknown>;
  };

  it('ingests an upload, finds it by search, answers from it with a numbered source, and lists it', async () => {
    const result = await upload('readme.md', await fixture('readme.md'), { section: 'guides' });
    expect(result).to.include({
      success: true,
      filename: 'readme.md',
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
    expect(search.body.results[0]).to.include({ doc_id: docId, source: 'guides/readme.md' });
    expect(search.body.results[0].metadata).to.include({ title: 'Riverwatch Toolkit', section: 'guides' });
    expect(search.body.results[0].text).to.match(/erosion/);

    const query = await app.http
      .post('/api/v1/query')
      .send({ question: 'Where does the configuration file live?', include_context: true })
      .expect(200);
    expect(query.body.question).to.equal('Where does the configuration file live?');
    expect(query.body.answer).to.match(/config\.toml/);
    expect(query.body.answer).to.match(/\[\d\]/);
    expect(query.body.sources[0]).to.include({
      doc_id: docId,
      title: 'Riverwatch Toolkit',
      section: 'guides',
    });
    expect(query.body.context_used).to.include('Question: Where does the configuration file live?');
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
    expect(list.body).to.include({ total: 1, page: 1, page_size: 20, pages: 1 });
    expect(list.body.documents[0].metadata).to.include({
      title: 'Riverwatch Toolkit',
      source: 'guides/readme.md',
      section: 'guides',
      language: 'en',
    });
    const one = await app.http.get(`/api/v1/documents/${docId}`).expect(200);
    expect(one.body.text).to.include('Installation');
    expect((await app.http.get('/api/v1/documents/sources').expect(200)).body).to.deep.equal({
      sources: ['guides/readme.md'],
      count: 1,
    });
    expect((await app.http.get('/api/v1/documents/stats').expect(200)).body).to.deep.equal({
      total_documents: 1,
      by_source: { 'guides/readme.md': 1 },
      by_language: { en: 1 },
    });
  });

  it('detects duplicates by path and by content, and re-ingests with skip_duplicates false', async () => {
    const bytes = await fixture('readme.md');
    const first = await upload('readme.md', bytes);
    const samePath = await upload('readme.md', bytes);
    expect(samePath).to.include({
      success: true,
      is_duplicate: true,
      duplicate_type: 'filepath',
      existing_doc_id: first['doc_id'],
      existing_doc_title: 'Riverwatch Toolkit',
      chunks_added: 0,
    });
    expect(samePath['duplicate_message']).to.match(/already holds this file path/);
    const sameContent = await upload('copy-of-readme.md', bytes);
    expect(sameContent).to.include({
      is_duplicate: true,
      duplicate_type: 'content_hash',
      existing_doc_id: first['doc_id'],
    });

    const edited = Buffer.from(
      bytes.toString('utf8').replace('Run a survey for one site', 'Run one survey per site'),
    );
    const again = await upload('readme.md', edited, { skip_duplicates: 'false' });
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
    const list = await app.http.get('/api/v1/documents').expect(200);
    expect(list.body.total).to.equal(1);
  });

  it('makes one document of concurrent uploads of the same file: the others wait for it and are its duplicates', async () => {
    const bytes = await fixture('report.txt');
    const results = await Promise.all(Array.from({ length: 6 }, () => upload('report.txt', bytes)));
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
    expect((await app.http.get('/api/v1/documents').expect(200)).body.total).to.equal(1);
  });

  it('makes one document of concurrent uploads of the same content under two names: the other is its content duplicate', async () => {
    const bytes = await fixture('report.txt');
    const results = await Promise.all([upload('a.md', bytes), upload('b.md', bytes)]);
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
    expect(duplicates[0]!['filename']).to.equal(stored[0]!['filename'] === 'a.md' ? 'b.md' : 'a.md');
    const list = await app.http.get('/api/v1/documents').expect(200);
    expect(list.body.total).to.equal(1);
    expect(list.body.documents).to.have.lengthOf(1);
    expect(list.body.documents[0].id).to.equal(stored[0]!['doc_id']);
    expect(list.body.documents[0].metadata.source).to.equal(`uploaded/${stored[0]!['filename'] as string}`);
    // The loser gave its path back: uploading the other name again is a content duplicate, not a path one.
    const again = await upload(duplicates[0]!['filename'] as string, bytes);
    expect(again).to.include({ is_duplicate: true, duplicate_type: 'content_hash' });
  });

  it('takes over a claim on a path left by an ingestion that died long ago', async () => {
    const source = createHash('sha256').update('uploaded/orphan.txt').digest('hex');
    await reserve(app.runtime.eventStore, SOURCE_RESERVATION, source, 'document-of-a-dead-worker', {
      now: '2020-01-01T00:00:00.000Z',
      actorId: 'worker-killed-mid-ingestion',
      correlationId: 'c',
    });
    const result = await upload('orphan.txt', await fixture('report.txt'));
    expect(result).to.include({ success: true, is_duplicate: false });
  });

  it('ingests OpenDocument uploads (.odt, .ods, .odp) and finds their text', async () => {
    const office = join(import.meta.dirname, '..', 'fixtures', 'documents', 'office');
    for (const [name, query] of [
      ['report.odt', 'laboratory within 24 hours'],
      ['workbook.ods', 'North & East provisional'],
      ['slides.odp', 'northern sampling site weather'],
    ] as const) {
      const result = await upload(name, await readFile(join(office, name)), { section: 'odf' });
      expect(result, name).to.include({ success: true, filename: name, error: null });
      expect(result['chunks_added'], name).to.be.a('number').greaterThan(0);
      const search = await app.http.post('/api/v1/search').send({ query }).expect(200);
      expect(search.body.results[0], name).to.include({ source: `odf/${name}` });
    }
  });

  it('reports an unsupported or broken file with success false and stores nothing', async () => {
    const unsupported = await upload('tool.exe', Buffer.from('MZ...'));
    expect(unsupported).to.include({ success: false, doc_id: null, chunks_added: 0 });
    expect(unsupported['error']).to.match(/Unsupported file type \.exe/);
    const broken = await upload('broken.pdf', Buffer.from('%PDF-1.7 this is not really a pdf'));
    expect(broken).to.include({ success: false, doc_id: null });
    expect(broken['error']).to.be.a('string').and.not.empty;
    expect((await app.http.get('/api/v1/documents').expect(200)).body.total).to.equal(0);
  });

  it('deletes a document from every index, frees its keys, and reports unknown ids as not_found', async () => {
    const first = await upload('readme.md', await fixture('readme.md'));
    const docId = first['doc_id'] as string;
    const deleted = await app.http.delete(`/api/v1/documents/${docId}`).expect(200);
    expect(deleted.body).to.deep.equal({ doc_id: docId, status: 'deleted', message: 'Document deleted' });
    await app.http.get(`/api/v1/documents/${docId}`).expect(404);
    const search = await app.http.post('/api/v1/search').send({ query: 'river bank erosion' }).expect(200);
    expect(search.body.results.map((result: { doc_id: string }) => result.doc_id)).to.not.include(docId);
    expect(await app.runtime.knowledge.vectorIndex().count()).to.equal(0);
    const missing = await app.http.delete(`/api/v1/documents/${docId}`).expect(200);
    expect(missing.body.status).to.equal('not_found');

    // The path and content keys are free again (released by a reactor, or taken over from a deleted holder).
    const again = await upload('readme.md', await fixture('readme.md'));
    expect(again).to.include({ success: true, is_duplicate: false });
    expect(again['doc_id']).to.not.equal(docId);
  });

  it('deletes by id list, by source and by filter with consistent counts', async () => {
    const a = await upload('readme.md', await fixture('readme.md'), { section: 'one' });
    await upload('report.txt', await fixture('report.txt'), { section: 'two' });
    await upload('guide.rst', await fixture('guide.rst'), { section: 'two' });
    const many = await app.http
      .post('/api/v1/documents/delete')
      .send({ doc_ids: [a['doc_id'], 'nope'] })
      .expect(200);
    expect(many.body).to.include({ deleted: 1, skipped: 1, errors: 0 });
    const bySource = await app.http
      .post('/api/v1/documents/delete/by-source')
      .send({ source: 'two/report.txt' })
      .expect(200);
    expect(bySource.body).to.include({ deleted: 1, more: false });
    const byFilter = await app.http
      .post('/api/v1/documents/delete/by-filter')
      .send({ where: { section: 'two' } })
      .expect(200);
    expect(byFilter.body).to.include({ deleted: 1 });
    expect((await app.http.get('/api/v1/documents').expect(200)).body.total).to.equal(0);
    await app.http
      .post('/api/v1/documents/delete/by-filter')
      .send({ where: { owner: 'x' } })
      .expect(422);
  });

  it('bulk upload counts agree with the per-file results', async () => {
    const response = await app.http
      .post('/api/v1/upload/bulk')
      .attach('files', await fixture('readme.md'), 'readme.md')
      .attach('files', await fixture('readme.md'), 'readme.md')
      .attach('files', Buffer.from('x'), 'notes.exe')
      .expect(200);
    expect(response.body).to.include({ total_files: 3, successful: 1, duplicates: 1, failed: 1 });
    expect(response.body.results).to.have.length(3);
    expect(response.body.errors).to.have.length(1);
  });

  it('uploads asynchronously: a task whose result is the ingestion result', async () => {
    const response = await app.http
      .post('/api/v1/upload/async')
      .attach('file', await fixture('arabic.txt'), 'arabic.txt')
      .expect(202);
    expect(response.body).to.include({ status: 'pending' });
    const taskId = response.body.task_id as string;
    let task: Record<string, unknown> = {};
    for (let i = 0; i < 200 && task['status'] !== 'completed'; i += 1) {
      task = (await app.http.get(`/api/v1/tasks/${taskId}`).expect(200)).body;
      if (task['status'] !== 'completed') await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(task['status']).to.equal('completed');
    expect(task['result']).to.include({ success: true, filename: 'arabic.txt', is_duplicate: false });
    // Arabic search with other letter forms (hamza on alef, ta marbuta) finds it.
    const search = await app.http.post('/api/v1/search').send({ query: 'جوده المياه' }).expect(200);
    expect(search.body.results[0].metadata.language).to.equal('ar');
  });
});
