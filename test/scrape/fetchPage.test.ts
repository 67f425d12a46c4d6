import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createAddressPolicy } from '../../src/scrape/addressPolicy.js';
import { fetchPage, FetchPageError, type FetchOptions } from '../../src/scrape/fetchPage.js';
import { normalizeUrl } from '../../src/scrape/normalizeUrl.js';
import { expectRejection } from '../support/expectRejection.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

describe('fetchPage', () => {
  let server: Server;
  let port = 0;
  const seen: string[] = [];
  const routes = new Map<string, Handler>();
  before(async () => {
    server = createServer((request, response) => {
      seen.push(request.url ?? '');
      const handler = routes.get(request.url ?? '');
      if (handler) handler(request, response);
      else response.writeHead(404).end('missing');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => (seen.length = 0));

  const base = () => `http://127.0.0.1:${port}`;
  const options = (overrides: Partial<FetchOptions> = {}): FetchOptions => ({
    timeoutMs: 2_000,
    maxBytes: 10_000,
    maxRedirects: 3,
    policy: createAddressPolicy(['127.0.0.1']),
    userAgent: 'archivist-test',
    ...overrides,
  });
  const expectCode = async (promise: Promise<unknown>, code: string) =>
    expect((await expectRejection(promise, FetchPageError)).code).to.equal(code);

  routes.set('/page', (_, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<html><head><title>Hello</title></head><body><p>Hi</p></body></html>');
  });
  routes.set('/to-page', (_, response) => response.writeHead(302, { location: '/page' }).end());
  routes.set('/to-metadata', (_, response) =>
    response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
  );
  routes.set('/to-localhost', (_, response) =>
    response.writeHead(301, { location: 'http://localhost:1/' }).end(),
  );
  routes.set('/loop', (_, response) => response.writeHead(302, { location: '/loop' }).end());
  routes.set('/big', (_, response) => {
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '50000' });
    response.end('x'.repeat(50_000));
  });
  routes.set('/big-chunked', (_, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    for (let i = 0; i < 20; i += 1) response.write('y'.repeat(1_000));
    response.end();
  });
  routes.set('/slow', (_, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('start');
    // Never ends: the fetch must give up at its time limit.
  });
  routes.set('/binary', (_, response) =>
    response.writeHead(200, { 'content-type': 'application/x-msdownload' }).end('MZ'),
  );
  routes.set('/docs/guide.pdf?x=1', (_, response) =>
    response.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-'),
  );

  it('fetches an allowed page with its type, final URL and a file name the pipeline understands', async () => {
    const page = await fetchPage(`${base()}/to-page`, options());
    expect(page).to.include({
      finalUrl: `${base()}/page`,
      status: 200,
      contentType: 'text/html',
      fileName: 'page.html',
    });
    expect(page.bytes.toString()).to.include('<title>Hello</title>');
    const pdf = await fetchPage(`${base()}/docs/guide.pdf?x=1`, options());
    expect(pdf.fileName).to.equal('guide.pdf');
  });

  it('refuses loopback, private and metadata addresses unless allowed, before any request', async () => {
    await expectCode(
      fetchPage(`${base()}/page`, options({ policy: createAddressPolicy([]) })),
      'blocked_address',
    );
    await expectCode(
      fetchPage(`http://localhost:${port}/page`, options({ policy: createAddressPolicy([]) })),
      'blocked_address',
    );
    for (const url of [
      'http://10.1.2.3/',
      'http://169.254.169.254/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
    ])
      await expectCode(fetchPage(url, options({ policy: createAddressPolicy([]) })), 'blocked_address');
    expect(seen).to.deep.equal([]);
  });

  it('re-checks every redirect hop', async () => {
    await expectCode(fetchPage(`${base()}/to-metadata`, options()), 'blocked_address');
    await expectCode(fetchPage(`${base()}/to-localhost`, options()), 'blocked_address');
    await expectCode(fetchPage(`${base()}/loop`, options()), 'too_many_redirects');
  });

  it('checks the very DNS answer it connects with: a name resolving to a private address never reaches it', async () => {
    const answering = (addresses: string[]) =>
      ((_host: string, _options: unknown, callback: (...args: unknown[]) => void) =>
        callback(
          null,
          addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
        )) as unknown as FetchOptions['lookup'];
    const policy = createAddressPolicy([]);
    // A public name that answers with loopback now (rebinding), or with a mix of public and private.
    await expectCode(
      fetchPage(`http://rebind.example:${port}/page`, options({ policy, lookup: answering(['127.0.0.1']) })),
      'blocked_address',
    );
    await expectCode(
      fetchPage(
        `http://mixed.example:${port}/page`,
        options({ policy, lookup: answering(['93.184.216.34', '127.0.0.1']) }),
      ),
      'blocked_address',
    );
    await expectCode(
      fetchPage(`http://v6.example:${port}/page`, options({ policy, lookup: answering(['::ffff:7f00:1']) })),
      'blocked_address',
    );
    expect(seen).to.deep.equal([]);
  });

  it('lets allowed CIDRs and names through', async () => {
    const page = await fetchPage(`${base()}/page`, options({ policy: createAddressPolicy(['127.0.0.0/8']) }));
    expect(page.status).to.equal(200);
    const named = await fetchPage(
      `http://localhost:${port}/page`,
      options({ policy: createAddressPolicy(['localhost']) }),
    );
    expect(named.status).to.equal(200);
  });

  it('enforces the size cap from Content-Length and while streaming', async () => {
    await expectCode(fetchPage(`${base()}/big`, options()), 'too_large');
    await expectCode(fetchPage(`${base()}/big-chunked`, options()), 'too_large');
  });

  it('gives up on a body that never ends at the time limit', async () => {
    await expectCode(fetchPage(`${base()}/slow`, options({ timeoutMs: 300 })), 'timeout');
  });

  it('refuses content it cannot ingest, HTTP errors and non-http URLs', async () => {
    await expectCode(fetchPage(`${base()}/binary`, options()), 'unsupported_type');
    await expectCode(fetchPage(`${base()}/nothing`, options()), 'http_status');
    await expectCode(fetchPage('file:///etc/passwd', options()), 'invalid_url');
    await expectCode(fetchPage('not a url', options()), 'invalid_url');
  });
});

describe('normalizeUrl', () => {
  for (const [raw, normal] of [
    ['HTTPS://Example.COM:443/a/b/?utm_source=x&b=2&a=1#top', 'https://example.com/a/b?a=1&b=2'],
    ['http://example.com', 'http://example.com/'],
    ['http://example.com:8080/x?fbclid=1', 'http://example.com:8080/x'],
    ['https://bücher.example/', 'https://xn--bcher-kva.example/'],
  ] as const) {
    it(`${raw} → ${normal}`, () => expect(normalizeUrl(raw)).to.equal(normal));
  }
  it('refuses what is not http(s)', () => expect(() => normalizeUrl('ftp://x/')).to.throw(/not an http/));
});
