import { expect } from 'chai';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { documentSweeper } from '../support/cluster.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

/** The host the requests name; a page of this server has this origin. */
const HOST = 'archivist.example';
const SAME_ORIGIN = `http://${HOST}`;

function sidOf(setCookie: string[] | string | undefined): string {
  const header = ([] as string[]).concat(setCookie ?? []).find((value) => value.startsWith('sid='));
  if (!header) throw new Error('no sid cookie set');
  return header.split(';')[0]!;
}

/**
 * The web console calls the Retrieval API with the login session's cookie: the request then acts
 * as the signed-in user, like one with the user's key pair. Requests that change something must
 * come from this server's own pages (Origin, or Sec-Fetch-Site: same-origin); credentials in a
 * header are not affected.
 */
describe('The login session on the Retrieval API (web console)', function () {
  this.timeout(60_000);
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let aliceCookie: string;
  let bobCookie: string;
  const stored = documentSweeper();

  const login = async (user: TestUser): Promise<string> => {
    const response = await app.http
      .post('/api/method/login')
      .send({ usr: user.name, pwd: user.password })
      .expect(200);
    const cookie = ([] as string[]).concat(response.headers['set-cookie'] ?? [])[0]!;
    expect(cookie).to.include('Path=/api;').and.include('HttpOnly').and.include('SameSite=Lax');
    return sidOf(response.headers['set-cookie']);
  };
  const upload = (name: string) =>
    app.http
      .post('/api/v1/upload')
      .set('Host', HOST)
      .attach(
        'file',
        Buffer.from(`# ${name}\n\nThe ${name} lists the lighthouses of the coast.\n`),
        `${name}.md`,
      );

  before(async () => {
    app = await startTestApp({ env: { API_KEYS: 'service-key' } });
    alice = await addTestUser(app, 'alice');
    bob = await addTestUser(app, 'bob');
    aliceCookie = await login(alice);
    bobCookie = await login(bob);
  });
  after(async () => {
    await stored.sweep((docId) =>
      app.http.delete(`/api/v1/documents/${docId}`).set('X-API-Key', 'service-key').expect(200),
    );
    await app.stop();
  });

  /** The ids of the tasks `cookie`'s user may see (a user sees their own only). */
  const tasksOf = async (cookie: string): Promise<string[]> => {
    const listed = await app.http
      .get('/api/v1/tasks')
      .set('Cookie', cookie)
      .set('Sec-Fetch-Site', 'same-origin')
      .expect(200);
    return (listed.body.tasks as Array<{ task_id: string }>).map((task) => task.task_id);
  };

  it('reads as the signed-in user: without it 401, with it the user sees their own tasks only', async () => {
    await app.http.get('/api/v1/documents').set('Sec-Fetch-Site', 'same-origin').expect(401);
    await app.http
      .get('/api/v1/documents')
      .set('Cookie', aliceCookie)
      .set('Sec-Fetch-Site', 'same-origin')
      .expect(200);
    const register = await upload('lighthouse-register')
      .set('Cookie', aliceCookie)
      .set('Origin', SAME_ORIGIN)
      .expect(200);
    expect(stored.keep(register.body).success).to.equal(true);
    // The upload ran as a task of Alice's: her session sees it, Bob's does not.
    expect(await tasksOf(aliceCookie)).to.have.length(1);
    expect(await tasksOf(bobCookie)).to.deep.equal([]);
    // The event log is for services and administrators, not for Alice.
    const events = await app.http
      .get('/api/v1/events')
      .set('Cookie', aliceCookie)
      .set('Sec-Fetch-Site', 'same-origin')
      .query({ from: 0 })
      .expect(403);
    expect(events.body.error).to.be.a('string');
  });

  it('accepts a change from a page of this server: Origin of this host, or Sec-Fetch-Site: same-origin', async () => {
    const byOrigin = await upload('tide-almanac').set('Cookie', aliceCookie).set('Origin', SAME_ORIGIN);
    expect(byOrigin.status).to.equal(200);
    stored.keep(byOrigin.body);
    const byFetchMetadata = await upload('harbour-charts')
      .set('Cookie', aliceCookie)
      .set('Sec-Fetch-Site', 'same-origin');
    expect(byFetchMetadata.status).to.equal(200);
    stored.keep(byFetchMetadata.body);
    const search = await app.http
      .post('/api/v1/search')
      .set('Host', HOST)
      .set('Cookie', aliceCookie)
      .set('Origin', SAME_ORIGIN)
      .send({ query: 'lighthouses' })
      .expect(200);
    expect(search.body.results).to.be.an('array');
  });

  it('refuses a cross-site change made with the cookie: 403 in the error shape, nothing stored', async () => {
    const tasksBefore = await tasksOf(aliceCookie);
    const crossSite = [
      { Origin: 'http://evil.example' },
      { Origin: 'null' },
      { 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'same-site', Origin: `http://sub.${HOST}` },
    ];
    for (const headers of crossSite) {
      const refused = await upload('forged').set('Cookie', aliceCookie).set(headers).expect(403);
      expect(refused.body, JSON.stringify(headers)).to.include({
        error: 'cross_site_request',
        status_code: 403,
      });
      expect(refused.body.detail).to.include('Origin');
    }
    // No browser's headers (an HTTP client with a cookie jar): the cookie is not looked at, and the
    // request is judged by its headers as before the cookie reached this API: here, no key.
    const client = await upload('scripted').set('Cookie', aliceCookie).expect(401);
    expect(client.body).to.include({ error: 'missing_api_key' });
    const deletion = await app.http
      .delete('/api/v1/documents/any-id')
      .set('Host', HOST)
      .set('Cookie', aliceCookie)
      .set('Origin', 'http://evil.example')
      .expect(403);
    expect(deletion.body.error).to.equal('cross_site_request');
    expect(await tasksOf(aliceCookie)).to.deep.equal(tasksBefore);
    // Reads stay open to the cookie whatever the origin: a cross-site page cannot read the answer.
    await app.http
      .get('/api/v1/documents')
      .set('Host', HOST)
      .set('Cookie', aliceCookie)
      .set('Origin', 'http://evil.example')
      .expect(200);
  });

  it('leaves credentials in a header as they were: they win over the cookie and need no Origin', async () => {
    const aliceTasks = await tasksOf(aliceCookie);
    const service = await upload('coast-guide')
      .set('X-API-Key', 'service-key')
      .set('Cookie', aliceCookie)
      .set('Origin', 'http://evil.example')
      .expect(200);
    stored.keep(service.body);
    const keyPair = await upload('buoy-codes')
      .set('Authorization', bob.authorization)
      .set('Cookie', aliceCookie)
      .set('Origin', 'http://evil.example')
      .expect(200);
    stored.keep(keyPair.body);
    // Neither ran as Alice: the service's task and Bob's are not hers.
    expect(await tasksOf(aliceCookie)).to.deep.equal(aliceTasks);
    expect(await tasksOf(bobCookie)).to.have.length(1);
    await app.http.get('/api/v1/documents').set('X-API-Key', 'wrong').set('Cookie', aliceCookie).expect(403);
  });

  it('answers an ended session 401 and clears the cookie', async () => {
    const sid = await login(alice);
    await app.http.post('/api/method/logout').set('Cookie', sid).expect(200);
    const refused = await app.http
      .get('/api/v1/documents')
      .set('Cookie', sid)
      .set('Sec-Fetch-Site', 'same-origin')
      .expect(401);
    expect(refused.body).to.include({ error: 'session_expired', status_code: 401 });
    expect(String(refused.headers['set-cookie'])).to.match(/^sid=; Path=\/api; Max-Age=0/);
    await app.http
      .get('/api/v1/documents')
      .set('Cookie', 'sid=not-a-session')
      .set('Sec-Fetch-Site', 'same-origin')
      .expect(401);
  });
});
