import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { documentSweeper } from '../support/cluster.js';
import { skipIfClusterScrapesLoopback, skipUnlessClusterScrapesLoopback } from '../support/clusterScrape.js';
import { eventually, startTestApp, type TestApp } from '../support/testApp.js';

const ARTICLE = `<html><head><title>Tidal Gauges</title></head><body>
<nav>Home | About | Contact</nav>
<article><h1>Tidal Gauges</h1><p>A tidal gauge measures the height of the sea surface every six minutes.
Readings from the harbour gauge are published each hour.</p><h2>Maintenance</h2><p>Gauges are cleaned every spring.</p></article>
<footer>Copyright</footer></body></html>`;

describe('scrape over HTTP', () => {
  let server: Server;
  let base = '';
  let app: TestApp;
  // `/together` answers its first two requests only once both are waiting (or after a second), so
  // that two scrapes of it are surely fetched, and then ingested, at the same time.
  let waiting: Array<() => void> = [];
  let togetherRequests = 0;
  before(async () => {
    server = createServer((request, response) => {
      if (request.url === '/tides') response.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE);
      else if (request.url === '/together') {
        togetherRequests += 1;
        const answer = (): void => void response.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE);
        waiting.push(answer);
        const release = (): void => {
          const all = waiting;
          waiting = [];
          for (const send of all) send();
        };
        if (waiting.length >= 2 || togetherRequests > 2) release();
        else setTimeout(release, 1_000).unref();
      } else if (request.url === '/tides?utm_source=mail')
        response.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE);
      else if (request.url === '/notes.txt')
        response
          .writeHead(200, { 'content-type': 'text/plain' })
          .end('Field notes: the river rose two metres in March.');
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => new Promise<void>((resolve) => server.close(() => resolve())));
  // The pages share their text: in a cluster, one test's stored page would be the next one's duplicate.
  const pages = documentSweeper();
  afterEach(async () => {
    await pages.sweep((docId) => app.http.delete(`/api/v1/documents/${docId}`).expect(200));
    await app.stop();
  });

  it('stores a page allowed by SCRAPE_ALLOWED_HOSTS, finds it, and detects the same URL again', async function () {
    app = await startTestApp({ env: { SCRAPE_ALLOWED_HOSTS: '127.0.0.1' } });
    await skipUnlessClusterScrapesLoopback(this, app);
    const first = await app.http
      .post('/api/v1/scrape')
      .send({ url: `${base}/tides` })
      .expect(200);
    pages.keep(first.body);
    expect(first.body).to.include({
      success: true,
      url: `${base}/tides`,
      title: 'Tidal Gauges',
      is_duplicate: false,
    });
    expect(first.body.chunks_added).to.be.greaterThan(0);
    const search = await app.http.post('/api/v1/search').send({ query: 'sea surface height' }).expect(200);
    expect(search.body.results[0]).to.include({ doc_id: first.body.doc_id, source: `${base}/tides` });
    expect(search.body.results[0].metadata.section).to.equal('web');
    // Tracking parameters do not make another page.
    const again = await app.http
      .post('/api/v1/scrape')
      .send({ url: `${base}/tides?utm_source=mail` })
      .expect(200);
    expect(again.body).to.include({
      is_duplicate: true,
      duplicate_type: 'url',
      existing_doc_id: first.body.doc_id,
    });
  });

  it('makes one document of concurrent scrapes of the same URL: the others are its URL duplicates', async function () {
    app = await startTestApp({ env: { SCRAPE_ALLOWED_HOSTS: '127.0.0.1' } });
    await skipUnlessClusterScrapesLoopback(this, app);
    const before = await app.http.get('/api/v1/documents/sources').expect(200);
    togetherRequests = 0;
    const url = `${base}/together`;
    const responses = await Promise.all(
      Array.from({ length: 3 }, () => app.http.post('/api/v1/scrape').send({ url }).expect(200)),
    );
    const results = responses.map((response) => pages.keep(response.body as Record<string, unknown>));
    expect(togetherRequests, 'pages fetched').to.be.at.least(2);
    const stored = results.filter((result) => result['is_duplicate'] === false);
    expect(stored).to.have.lengthOf(1);
    expect(stored[0]).to.include({ success: true, url, title: 'Tidal Gauges', duplicate_type: null });
    expect(stored[0]!['chunks_added']).to.be.greaterThan(0);
    const duplicates = results.filter((result) => result['is_duplicate'] === true);
    expect(duplicates).to.have.lengthOf(2);
    for (const duplicate of duplicates) {
      expect(duplicate).to.include({
        success: true,
        url,
        doc_id: null,
        chunks_added: 0,
        duplicate_type: 'url',
        existing_doc_id: stored[0]!['doc_id'],
        existing_doc_title: 'Tidal Gauges',
      });
    }
    const list = await app.http.get('/api/v1/documents').expect(200);
    expect(list.body.total).to.equal(before.body.count + 1);
    expect(list.body.documents[0].id).to.equal(stored[0]!['doc_id']);
    expect((await app.http.get('/api/v1/documents/sources').expect(200)).body.sources).to.deep.equal(
      [...(before.body.sources as string[]), url].sort(),
    );
  });

  it('refuses a loopback address by default, with success false and the reason', async function () {
    app = await startTestApp();
    await skipIfClusterScrapesLoopback(this, app);
    const refused = await app.http
      .post('/api/v1/scrape')
      .send({ url: `${base}/tides` })
      .expect(200);
    expect(refused.body).to.include({ success: false, doc_id: null, chunks_added: 0 });
    expect(refused.body.error).to.match(/private, loopback/);
  });

  it('scrapes several URLs in a task with per-URL results and totals', async function () {
    app = await startTestApp({ env: { SCRAPE_ALLOWED_HOSTS: '127.0.0.0/8' } });
    await skipUnlessClusterScrapesLoopback(this, app);
    const accepted = await app.http
      .post('/api/v1/scrape/async')
      .send({ urls: [`${base}/tides`, `${base}/notes.txt`, `${base}/missing`], timeout: 5 })
      .expect(202);
    const task = await eventually(async () => {
      const body = (await app.http.get(`/api/v1/tasks/${accepted.body.task_id}`).expect(200)).body;
      return body.status === 'completed' ? body : undefined;
    });
    pages.keep(task.result);
    expect(task.result).to.include({ urls_processed: 3, successful: 2, failed: 1 });
    expect(task.result.total_chunks_added).to.be.greaterThan(1);
    expect(task.result.results[2]).to.include({ success: false, url: `${base}/missing` });
    expect(task.result.results[2].error).to.match(/HTTP 404/);
  });

  it('validates the request: URL scheme, timeout range and URL count', async () => {
    app = await startTestApp();
    await app.http.post('/api/v1/scrape').send({ url: 'ftp://example.com/' }).expect(422);
    await app.http.post('/api/v1/scrape').send({ url: 'https://example.com/', timeout: 2 }).expect(422);
    await app.http.post('/api/v1/scrape/async').send({ urls: [] }).expect(422);
    await app.http
      .post('/api/v1/scrape/async')
      .send({ urls: Array.from({ length: 51 }, (_, i) => `https://e.com/${i}`) })
      .expect(422);
  });
});
