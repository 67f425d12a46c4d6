import { expect } from 'chai';
import { skipInCluster } from '../support/cluster.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

describe('an empty knowledge base', () => {
  let app: TestApp;
  before(async function () {
    skipInCluster(this, "needs an empty knowledge base; the cluster's holds every suite's documents");
    app = await startTestApp();
  });
  after(async () => app?.stop());

  it('searches to no results', async () => {
    const search = await app.http.post('/api/v1/search').send({ query: 'backup rotation' }).expect(200);
    expect(search.body).to.include({ count: 0 });
    expect(search.body.results).to.deep.equal([]);
  });

  it('answers that it found nothing, with no sources, and invents nothing', async () => {
    const query = await app.http
      .post('/api/v1/query')
      .send({ question: 'How often are backups rotated?', include_context: true })
      .expect(200);
    expect(query.body.sources).to.deep.equal([]);
    expect(query.body.abstained).to.equal(true);
    expect(query.body.answer)
      .to.be.a('string')
      .and.match(/no|not|nothing/i);
    expect(query.body.answer).to.not.match(/\[\d+\]/);
  });
});
