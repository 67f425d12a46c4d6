import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.js';
import { clusterMode, documentSweeper, uniqueUpload } from '../support/cluster.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const readme = async (): Promise<{ name: string; bytes: Buffer }> =>
  uniqueUpload(
    'readme.md',
    await readFile(join(import.meta.dirname, '..', 'fixtures', 'documents', 'text', 'readme.md')),
  );

describe('fusion weights of /search and /query', () => {
  let app: TestApp | null = null;
  let source = '';
  const stored = documentSweeper();
  afterEach(async () => {
    await stored.sweep((docId) => app!.http.delete(`/api/v1/documents/${docId}`).expect(200));
    await app?.stop();
    app = null;
  });

  async function withReadme(env: Record<string, string>): Promise<TestApp> {
    app = await startTestApp({ env });
    const { name, bytes } = await readme();
    source = `uploaded/${name}`;
    const uploaded = await app.http.post('/api/v1/upload').attach('file', bytes, name).expect(200);
    stored.keep(uploaded.body);
    return app;
  }

  // "eroshun" shares no word with the text, only character n-grams with "erosion".
  const MISSPELT = 'river bank eroshun';

  it('finds a misspelt query through the dense half when both retrievers count', async () => {
    const { http } = await withReadme({});
    const search = await http.post('/api/v1/search').send({ query: 'eroshun' }).expect(200);
    expect(search.body.count).to.be.greaterThan(0);
  });

  it('measures steps shorter than a millisecond instead of rounding them to 0', async () => {
    const { http } = await withReadme({});
    const query = await http.post('/api/v1/query').send({ question: MISSPELT }).expect(200);
    const { timing } = query.body as { timing: Record<string, number> };
    // A BM25 query and a local embedding of three words take microseconds, not milliseconds (the
    // embedded store's; MongoDB's text search is a round trip away, and only has to be above 0).
    expect(timing['keyword_search'])
      .to.be.greaterThan(0)
      .and.lessThan(clusterMode() ? Infinity : 0.05);
    expect(timing['embedding']).to.be.greaterThan(0);
    expect(timing['total']).to.be.at.least(timing['retrieval_total']!);
  });

  it('leaves the embedder and the vector index out with SEARCH_DENSE_WEIGHT=0', async () => {
    const { http } = await withReadme({ SEARCH_DENSE_WEIGHT: '0' });
    const misspelt = await http.post('/api/v1/search').send({ query: 'eroshun' }).expect(200);
    expect(misspelt.body.count).to.equal(0);
    const query = await http.post('/api/v1/query').send({ question: MISSPELT }).expect(200);
    expect(query.body.timing.embedding).to.equal(0);
    expect(query.body.timing.vector_search).to.equal(0);
    expect(query.body.sources[0].source).to.equal(source);
  });

  it('leaves the lexical index out with SEARCH_LEXICAL_WEIGHT=0 and still finds the document', async () => {
    const { http } = await withReadme({ SEARCH_LEXICAL_WEIGHT: '0' });
    const search = await http.post('/api/v1/search').send({ query: MISSPELT }).expect(200);
    expect(search.body.results[0].source).to.equal(source);
  });

  it('refuses weights that are out of range or leave nothing to search', () => {
    expect(() => loadConfig({ SEARCH_DENSE_WEIGHT: '-1' })).to.throw(ConfigError, /SEARCH_DENSE_WEIGHT/);
    expect(() => loadConfig({ SEARCH_LEXICAL_WEIGHT: 'lots' })).to.throw(
      ConfigError,
      /SEARCH_LEXICAL_WEIGHT/,
    );
    expect(() => loadConfig({ SEARCH_LEXICAL_WEIGHT: '0', SEARCH_DENSE_WEIGHT: '0' })).to.throw(
      ConfigError,
      /cannot both be 0/,
    );
    const withModel = {
      EMBEDDING_MODEL: 'e5',
      EMBEDDING_BASE_URL: 'http://127.0.0.1:1/v1',
      EMBEDDING_DIMENSIONS: '384',
    };
    expect(loadConfig(withModel).searchWeights).to.deep.equal({ lexical: 1, dense: 1 });
    expect(loadConfig({ SEARCH_LEXICAL_WEIGHT: '2.5' }).searchWeights).to.deep.equal({
      lexical: 2.5,
      dense: 0.01,
    });
  });
});
