import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { defaultConsoleDir } from '../../src/http/console.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8';
const INDEX = '<!doctype html><html lang="en"><title>console fixture</title><div id="app"></div></html>';
const SCRIPT = 'console.log("fixture asset");';
const SECRET = 'not-for-the-web';

/** GET of a raw path, exactly as written: HTTP clients would normalise `..` segments away. */
async function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const sent = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('The web console, served at /console/', function () {
  this.timeout(30_000);
  let folder: string;
  let app: TestApp;

  before(async () => {
    // A build of the console's shape: index.html and a hashed asset; a secret beside it.
    folder = await mkdtemp(join(tmpdir(), 'archivist-console-'));
    await mkdir(join(folder, 'console', 'assets'), { recursive: true });
    await writeFile(join(folder, 'console', 'index.html'), INDEX);
    await writeFile(join(folder, 'console', 'assets', 'index-AbC123.js'), SCRIPT);
    await writeFile(join(folder, 'secret.txt'), SECRET);
    app = await startTestApp({ env: { API_KEYS: 'k' }, app: { consoleDir: join(folder, 'console') } });
  });
  after(async () => {
    await app.stop();
    await rm(folder, { recursive: true, force: true });
  });

  it('sends a browser at / to the console, and API clients the JSON index as before', async () => {
    const browser = await app.http.get('/').set('Accept', BROWSER_ACCEPT).expect(302);
    expect(browser.headers['location']).to.equal('/console/');
    expect(browser.headers['vary']).to.include('Accept');
    for (const accept of ['application/json', '*/*', 'application/json, text/html']) {
      const api = await app.http.get('/').set('Accept', accept).expect(200);
      expect(api.body).to.include({ name: 'Archivist', docs: '/docs', openapi: '/openapi.json' });
    }
    const bare = await app.http.get('/').unset('Accept').expect(200);
    expect(bare.body.apis).to.deep.equal({
      retrieval: '/api/v1',
      assistant: '/api/method/assistant.api.<endpoint>',
      openai: '/v1',
    });
  });

  it('serves index.html revalidated every time, under a CSP that allows only this origin', async () => {
    await app.http.get('/console').expect(301).expect('Location', '/console/');
    const page = await app.http.get('/console/').expect(200);
    expect(page.text).to.equal(INDEX);
    expect(page.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(page.headers['cache-control']).to.equal('no-cache');
    const policy = String(page.headers['content-security-policy']);
    expect(policy).to.include("default-src 'self'").and.include("script-src 'self'");
    expect(policy).to.include("frame-ancestors 'none'").and.not.include('unsafe-inline');
    expect(page.headers['x-content-type-options']).to.equal('nosniff');
  });

  it('serves hashed assets cached for a year, with their content type', async () => {
    const asset = await app.http.get('/console/assets/index-AbC123.js').expect(200);
    expect(asset.text).to.equal(SCRIPT);
    expect(asset.headers['content-type']).to.equal('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    await app.http.head('/console/assets/index-AbC123.js').expect(200);
  });

  it("answers the single-page app's own paths with index.html, and a missing asset 404", async () => {
    for (const path of ['/console/documents', '/console/chat', '/console/ask/deeper?x=1']) {
      const page = await app.http.get(path).expect(200);
      expect(page.text, path).to.equal(INDEX);
    }
    const missing = await app.http.get('/console/assets/gone-123.js').expect(404);
    expect(missing.body).to.include({ error: 'not_found', status_code: 404 });
  });

  it('never serves a file outside the build, however the path is spelt', async () => {
    const base = (await app.server()).url;
    const attempts = [
      '/console/../secret.txt',
      '/console/assets/../../secret.txt',
      '/console/..%2fsecret.txt',
      '/console/assets/..%2f..%2fsecret.txt',
      '/console/assets/%2e%2e/%2e%2e/secret.txt',
      '/console/assets/..%5c..%5csecret.txt',
      '/console/assets/%00.js',
      '/console/assets/%E0%A4%A',
      `/console/assets/${encodeURIComponent(join(folder, 'secret.txt'))}`,
    ];
    for (const path of attempts) {
      const { status, body } = await rawGet(base, path);
      expect(body, path).not.to.include(SECRET);
      expect([200, 404], path).to.include(status);
      if (status === 200) expect(body, path).to.equal(INDEX);
    }
  });

  it('takes only GET and HEAD, and stays out of the OpenAPI document', async () => {
    const refused = await app.http.post('/console/').send({}).expect(405);
    expect(refused.headers['allow']).to.equal('GET, HEAD');
    expect(refused.body).to.include({ error: 'method_not_allowed', status_code: 405 });
    const { body } = await app.http.get('/openapi.json').expect(200);
    expect(Object.keys(body.paths as object).filter((path) => path.startsWith('/console'))).to.deep.equal([]);
  });

  it('answers 503 in the error shape, naming the fix, when the console is not built', async () => {
    const unbuilt = await startTestApp({ app: { consoleDir: join(folder, 'no-such-build') } });
    try {
      const response = await unbuilt.http.get('/console/').expect(503);
      expect(response.body).to.include({ error: 'console_not_built', status_code: 503 });
      expect(response.body.detail).to.include('npm run build');
      await unbuilt.http.get('/console/assets/index-AbC123.js').expect(503);
      await unbuilt.http.get('/').set('Accept', 'application/json').expect(200);
    } finally {
      await unbuilt.stop();
    }
  });

  it('locates the real build under the package root, with no inline script in it (the CSP forbids them)', async function () {
    const dir = defaultConsoleDir();
    expect(dir.endsWith(join('dist', 'console'))).to.equal(true);
    expect(existsSync(join(dir, '..', '..', 'package.json'))).to.equal(true);
    if (!existsSync(join(dir, 'index.html'))) {
      console.log(`      (no build at ${dir}: npm run build makes one)`);
      return this.skip();
    }
    const html = await readFile(join(dir, 'index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).to.be.greaterThan(0);
    for (const [, attributes, content] of scripts) {
      expect(attributes).to.match(/\bsrc="\/console\/assets\/[^"]+\.js"/);
      expect(content!.trim()).to.equal('');
    }
    expect(html).not.to.match(/<style\b|\sstyle="/);
  });
});
