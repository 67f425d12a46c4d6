import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { documentSweeper, uniqueUpload } from '../support/cluster.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'documents', 'text');

interface Result {
  doc_id: string;
  metadata: { section: string };
}

describe('search filters (additive to the spec)', function () {
  this.timeout(60_000);
  let app: TestApp;
  const stored = documentSweeper();
  // Sections of this suite's own: a cluster's knowledge base holds every suite's documents.
  const run = randomUUID().slice(0, 8);
  const sections = { guides: `guides-${run}`, manuals: `manuals-${run}`, arabic: `arabic-${run}` };
  const ids: Record<keyof typeof sections, string> = { guides: '', manuals: '', arabic: '' };
  let uploadedFrom = '';

  before(async () => {
    app = await startTestApp();
    uploadedFrom = new Date(Date.now() - 60_000).toISOString();
    const files: Array<[keyof typeof sections, string]> = [
      ['guides', 'readme.md'],
      ['manuals', 'guide.rst'],
      ['arabic', 'arabic.txt'],
    ];
    for (const [key, name] of files) {
      const { name: fileName, bytes } = uniqueUpload(name, await readFile(join(fixtures, name)));
      const response = await app.http
        .post('/api/v1/upload')
        .attach('file', bytes, fileName)
        .field('section', sections[key])
        .expect(200);
      ids[key] = stored.keep(response.body as { doc_id: string }).doc_id;
    }
  });
  after(async () => {
    await stored.sweep((docId) => app.http.delete(`/api/v1/documents/${docId}`).expect(200));
    await app.stop();
  });

  const search = (body: Record<string, unknown>) => app.http.post('/api/v1/search').send(body);

  it('returns only chunks of the documents a section, doc_id or language names', async () => {
    const bySection = await search({
      query: 'install configuration',
      filters: { section: sections.manuals },
    }).expect(200);
    const results = bySection.body.results as Result[];
    expect(results.length).to.be.greaterThan(0);
    expect(new Set(results.map((result) => result.doc_id))).to.deep.equal(new Set([ids.manuals]));
    const byId = await search({ query: 'install', filters: { doc_id: ids.guides } }).expect(200);
    expect((byId.body.results as Result[]).map((result) => result.doc_id)).to.include(ids.guides);
    expect(new Set((byId.body.results as Result[]).map((result) => result.doc_id)).size).to.equal(1);
    const arabic = await search({
      query: 'المياه',
      filters: { language: 'ar', section: [sections.arabic, sections.guides] },
    }).expect(200);
    expect((arabic.body.results as Result[]).map((result) => result.doc_id)).to.deep.equal(
      (arabic.body.results as Result[]).map(() => ids.arabic),
    );
    expect(arabic.body.count).to.be.greaterThan(0);
  });

  it('counts top_k among the matching chunks only, not top_k of everything then filtered', async () => {
    // The README is the best match for its own words; filtered to the manual, the top result is the
    // manual's best chunk rather than nothing.
    const unfiltered = await search({ query: 'Riverwatch toolkit erosion', top_k: 1 }).expect(200);
    expect((unfiltered.body.results as Result[])[0]!.doc_id).to.not.equal(ids.manuals);
    const filtered = await search({
      query: 'Riverwatch toolkit erosion',
      top_k: 1,
      filters: { section: [sections.manuals] },
    }).expect(200);
    expect(filtered.body.count).to.equal(1);
    expect((filtered.body.results as Result[])[0]!.doc_id).to.equal(ids.manuals);
  });

  it('narrows by a creation time range, both ends included', async () => {
    const none = await search({
      query: 'install',
      filters: { section: sections.guides, created_at: { to: '2000-01-01T00:00:00Z' } },
    }).expect(200);
    expect(none.body).to.deep.equal({ results: [], count: 0 });
    const since = await search({
      query: 'install',
      filters: { section: sections.guides, created_at: { from: uploadedFrom } },
    }).expect(200);
    expect(since.body.count).to.be.greaterThan(0);
  });

  it('answers /query from the matching documents only', async () => {
    const query = await app.http
      .post('/api/v1/query')
      .send({ question: 'How do I install it?', filters: { section: sections.manuals } })
      .expect(200);
    const sources = query.body.sources as Array<{ doc_id: string }>;
    expect(sources.length).to.be.greaterThan(0);
    expect(new Set(sources.map((source) => source.doc_id))).to.deep.equal(new Set([ids.manuals]));
  });

  it('takes the largest filter the schema allows: a thousand doc ids with every other field', async () => {
    const body = {
      query: 'install',
      filters: {
        doc_id: [ids.guides, ...Array.from({ length: 999 }, (_, i) => `no-such-document-${i}`)],
        section: sections.guides,
        language: 'en',
        source: 'nowhere',
        title: 'nothing',
        created_at: { from: '2000-01-01T00:00:00Z', to: '2000-01-01T00:00:00Z' },
      },
    };
    expect((await search(body).expect(200)).body).to.deep.equal({ results: [], count: 0 });
    const { source: _source, title: _title, created_at: _created, ...matching } = body.filters;
    const found = await search({ ...body, filters: matching }).expect(200);
    expect(new Set((found.body.results as Result[]).map((result) => result.doc_id))).to.deep.equal(
      new Set([ids.guides]),
    );
  });

  it('refuses an unknown filter key, or a wrong value, with 422 naming it', async () => {
    const unknown = await search({ query: 'install', filters: { author: 'someone' } }).expect(422);
    expect(unknown.body.errors).to.deep.include({
      location: 'body',
      field: 'filters.author',
      message:
        'is not a known key; allowed: language, section, source, title, collection, format, doc_id, created_at',
    });
    const wrong = await search({ query: 'install', filters: { created_at: { from: 'yesterday' } } }).expect(
      422,
    );
    expect(JSON.stringify(wrong.body.errors)).to.include('filters.created_at.from');
    await search({ query: 'install', filters: { section: [] } }).expect(422);
  });

  describe('the documents list, narrowed the same way (GET /documents)', () => {
    const list = (query: string) => app.http.get(`/api/v1/documents?page_size=100&${query}`);
    const idsOf = (body: { documents: Array<{ id: string }> }) => body.documents.map((doc) => doc.id);

    it('lists the documents of a section, several sections, a language or a type, and counts them', async () => {
      const one = await list(`section=${sections.manuals}`).expect(200);
      expect(idsOf(one.body)).to.deep.equal([ids.manuals]);
      expect(one.body).to.include({ total: 1, pages: 1 });
      const two = await list(`section=${sections.manuals}&section=${sections.arabic}`).expect(200);
      expect(idsOf(two.body)).to.have.members([ids.manuals, ids.arabic]);
      const arabic = await list(
        `language=ar&section=${sections.arabic}&section=${sections.guides}&section=${sections.manuals}`,
      ).expect(200);
      expect(idsOf(arabic.body)).to.deep.equal([ids.arabic]);
      const markdown = await list(
        `format=.md&section=${sections.guides}&section=${sections.manuals}&section=${sections.arabic}`,
      ).expect(200);
      expect(idsOf(markdown.body)).to.deep.equal([ids.guides]);
    });

    it('narrows by creation time, and refuses a time that is not one with 422 naming it', async () => {
      const since = await list(
        `created_from=${encodeURIComponent(uploadedFrom)}&section=${sections.guides}`,
      ).expect(200);
      expect(idsOf(since.body)).to.deep.equal([ids.guides]);
      const before = await list(`created_to=2000-01-01T00:00:00Z&section=${sections.guides}`).expect(200);
      expect(before.body).to.include({ total: 0 });
      const wrong = await list('created_from=yesterday').expect(422);
      expect(JSON.stringify(wrong.body.errors)).to.include('created_from');
    });
  });
});
