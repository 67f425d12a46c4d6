import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { sleep, startTestApp, type TestApp } from '../support/testApp.js';

const CONFIG = '/api/method/assistant.api.get_config';
const SETTINGS = '/api/method/assistant.api.get_settings';
const SECRET = 'a-shared-secret-of-at-least-32-characters!';

/** Every Assistant API error: the envelope with success false, zero tokens, and type, message and status. */
function expectEnvelopeError(body: { message: Record<string, unknown> }, status: number, type: string): void {
  expect(body.message).to.include({ success: false, data: null });
  expect(body.message['tokens_used']).to.deep.equal({ input: 0, output: 0, total: 0 });
  expect(body.message['error']).to.include({ type, status_code: status });
  expect((body.message['error'] as { message: string }).message).to.be.a('string').and.not.empty;
}

function sidOf(setCookie: string[] | string | undefined): string {
  const header = ([] as string[]).concat(setCookie ?? []).find((value) => value.startsWith('sid='));
  if (!header) throw new Error('no sid cookie set');
  return header.split(';')[0]!;
}

describe('Assistant API authentication', function () {
  this.timeout(20_000);

  describe('sessions, API keys and the envelope (real SQLite stores)', () => {
    let app: TestApp;
    let alice: TestUser;
    let bob: TestUser;
    let admin: TestUser;
    before(async () => {
      app = await startTestApp({ env: { EVENT_STORE: 'file', API_KEYS: 'retrieval-key' } });
      alice = await addTestUser(app, 'alice');
      bob = await addTestUser(app, 'bob');
      admin = await addTestUser(app, 'root', { admin: true });
    });
    after(() => app.stop());

    it('logs in with JSON or form fields, setting an HttpOnly SameSite=Lax cookie for the APIs only', async () => {
      const response = await app.http
        .post('/api/method/login')
        .send({ usr: alice.name, pwd: alice.password })
        .expect(200);
      expect(response.body).to.deep.include({
        message: {
          success: true,
          data: { user: alice.name, admin: false, expires_at: response.body.message.data.expires_at },
          tokens_used: { input: 0, output: 0, total: 0 },
        },
      });
      const cookie = ([] as string[]).concat(response.headers['set-cookie'] ?? [])[0]!;
      expect(cookie).to.match(/^sid=[A-Za-z0-9_-]{43}; /);
      expect(cookie).to.include('HttpOnly').and.include('SameSite=Lax').and.include('Path=/api;');
      expect(cookie).to.include('Max-Age=86400').and.not.include('Secure');
      const me = await app.http.get(CONFIG).set('Cookie', sidOf(cookie)).expect(200);
      expect(me.body.message.data.user).to.deep.equal({
        name: alice.name,
        admin: false,
        auth_method: 'session',
      });

      const form = await app.http
        .post('/api/method/login')
        .type('form')
        .send({ usr: alice.name.toUpperCase(), pwd: alice.password })
        .expect(200);
      expect(form.body.message.data.user).to.equal(alice.name);
    });

    it('refuses a wrong password and an unknown user alike, with WWW-Authenticate', async () => {
      for (const [usr, pwd] of [
        [alice.name, 'not-her-password'],
        ['nobody', 'whatever-password'],
      ]) {
        const response = await app.http.post('/api/method/login').send({ usr, pwd }).expect(401);
        expectEnvelopeError(response.body, 401, 'invalid_credentials');
        expect(response.body.message.error.message).to.equal('Wrong user name or password');
        expect(response.headers['www-authenticate']).to.equal('Token realm="archivist"');
        expect(response.headers['set-cookie']).to.equal(undefined);
      }
    });

    it('ends the session at logout: the old cookie no longer authenticates', async () => {
      const login = await app.http
        .post('/api/method/login')
        .send({ usr: bob.name, pwd: bob.password })
        .expect(200);
      const sid = sidOf(login.headers['set-cookie']);
      await app.http.get(CONFIG).set('Cookie', sid).expect(200);
      const out = await app.http.post('/api/method/logout').set('Cookie', sid).expect(200);
      expect(out.body.message).to.deep.include({ success: true, data: { logged_out: true } });
      expect(([] as string[]).concat(out.headers['set-cookie'] ?? [])[0]).to.match(/^sid=; .*Max-Age=0/);
      const after = await app.http.get(CONFIG).set('Cookie', sid).expect(401);
      expectEnvelopeError(after.body, 401, 'session_expired');
      // Logging out without a session is harmless.
      await app.http.post('/api/method/logout').expect(200);
    });

    it("does not let the cookie act for another site's pages, even on a GET; API clients and the console's own pages are unaffected", async () => {
      const login = await app.http
        .post('/api/method/login')
        .send({ usr: alice.name, pwd: alice.password })
        .expect(200);
      const sid = sidOf(login.headers['set-cookie']);
      // stream_ai_response is a GET that runs a chat turn: a link on another site must not start one.
      const stream = '/api/method/assistant.api.stream_ai_response?prompt=delete%20everything';
      for (const headers of [
        { 'Sec-Fetch-Site': 'cross-site' },
        { 'Sec-Fetch-Site': 'same-site' },
        { Origin: 'http://evil.example' },
        { Origin: 'null' },
      ]) {
        const refused = await app.http.get(stream).set('Cookie', sid).set(headers).expect(403);
        expectEnvelopeError(refused.body, 403, 'cross_site_request');
        await app.http.get(CONFIG).set('Cookie', sid).set(headers).expect(403);
      }
      // A person's own navigation, this server's pages, and a client without a browser's headers.
      await app.http.get(CONFIG).set('Cookie', sid).set('Sec-Fetch-Site', 'none').expect(200);
      await app.http.get(CONFIG).set('Cookie', sid).set('Sec-Fetch-Site', 'same-origin').expect(200);
      await app.http.get(CONFIG).set('Cookie', sid).expect(200);
      // Credentials in a header are not the cookie's: another site's page cannot send them.
      await app.http
        .get(CONFIG)
        .set('Authorization', alice.authorization)
        .set('Sec-Fetch-Site', 'cross-site')
        .expect(200);
    });

    it('keeps no session id, password or key secret in clear in any store', async () => {
      const login = await app.http
        .post('/api/method/login')
        .send({ usr: alice.name, pwd: alice.password })
        .expect(200);
      const sid = sidOf(login.headers['set-cookie']).slice('sid='.length);
      const events = JSON.stringify(await app.runtime.eventStore.readAll());
      const sessions = JSON.stringify(await app.runtime.readStore.find('sys_sessions'));
      const secret = alice.authorization.split(':')[1]!;
      for (const stored of [events, sessions]) {
        expect(stored).to.not.include(alice.password).and.not.include(secret).and.not.include(sid);
      }
      expect(events).to.include('scrypt$16384$8$1$');
    });

    it('authenticates an API key pair, and refuses a wrong secret, a revoked key and a malformed one', async () => {
      const ok = await app.http.get(CONFIG).set('Authorization', alice.authorization).expect(200);
      expect(ok.body.message.data.user).to.deep.equal({
        name: alice.name,
        admin: false,
        auth_method: 'api_key',
      });
      const wrong = alice.authorization.replace(/:.{4}/, ':AAAA');
      expectEnvelopeError(
        (await app.http.get(CONFIG).set('Authorization', wrong).expect(401)).body,
        401,
        'invalid_api_key',
      );
      for (const malformed of ['token', 'token nonsense', `token ${alice.keyId}`, 'token a:b:c']) {
        await app.http.get(CONFIG).set('Authorization', malformed).expect(401);
      }
      const other = await app.runtime.users.issueKey(alice.name, { actorId: 'test', correlationId: 'k2' });
      await app.http.get(CONFIG).set('Authorization', `token ${other.key}`).expect(200);
      await app.runtime.users.revokeKey(alice.name, other.keyId, { actorId: 'test', correlationId: 'r2' });
      const revoked = await app.http.get(CONFIG).set('Authorization', `token ${other.key}`).expect(401);
      expectEnvelopeError(revoked.body, 401, 'invalid_api_key');
      expect(revoked.headers['www-authenticate']).to.equal('Token realm="archivist"');
      // Her first key still works.
      await app.http.get(CONFIG).set('Authorization', alice.authorization).expect(200);
    });

    it('answers 401 before routing, for unknown endpoints too; X-API-Key and other schemes authenticate no one here', async () => {
      for (const path of [CONFIG, '/api/method/assistant.api.no_such_thing', '/api/method/anything']) {
        const response = await app.http.get(path).expect(401);
        expectEnvelopeError(response.body, 401, 'authentication_required');
        expect(response.headers['www-authenticate']).to.equal('Token realm="archivist"');
      }
      const retrievalKey = await app.http.get(CONFIG).set('X-API-Key', 'retrieval-key').expect(401);
      expect(retrievalKey.body.message.error.message).to.include('X-API-Key');
      expectEnvelopeError(
        (await app.http.get(CONFIG).set('Authorization', 'Basic YTpi').expect(401)).body,
        401,
        'unsupported_authorization',
      );
      expectEnvelopeError(
        (await app.http.get(CONFIG).set('Authorization', 'Bearer x.y.z').expect(401)).body,
        401,
        'bearer_not_accepted',
      );
      // The Retrieval API takes a user's credentials too (reading as that user), and its own key.
      await app.http.get('/api/v1/tasks').set('Authorization', alice.authorization).expect(200);
      await app.http.get('/api/v1/tasks').set('Authorization', 'token nokey:nosecret').expect(401);
      await app.http.get('/api/v1/tasks').set('X-API-Key', 'retrieval-key').expect(200);
    });

    it('authorises by role: the matrix of anonymous, user A, user B and an administrator', async () => {
      const as = {
        anonymous: null,
        alice: alice.authorization,
        bob: bob.authorization,
        admin: admin.authorization,
      } as const;
      const expected: Record<string, Record<keyof typeof as, number>> = {
        [`GET ${CONFIG}`]: { anonymous: 401, alice: 200, bob: 200, admin: 200 },
        [`GET ${SETTINGS}`]: { anonymous: 401, alice: 403, bob: 403, admin: 200 },
        'POST /api/method/logout': { anonymous: 200, alice: 200, bob: 200, admin: 200 },
        'GET /api/method/assistant.api.no_such_thing': { anonymous: 401, alice: 404, bob: 404, admin: 404 },
      };
      for (const [endpoint, byPrincipal] of Object.entries(expected)) {
        const [method, path] = endpoint.split(' ') as ['GET' | 'POST', string];
        for (const [who, status] of Object.entries(byPrincipal)) {
          const request = method === 'GET' ? app.http.get(path) : app.http.post(path);
          const authorization = as[who as keyof typeof as];
          if (authorization) request.set('Authorization', authorization);
          const response = await request;
          expect(response.status, `${who} ${endpoint}`).to.equal(status);
          if (status >= 400) expectEnvelopeError(response.body, status, response.body.message.error.type);
          else expect(response.body.message.success).to.equal(true);
        }
      }
      const forbidden = await app.http.get(SETTINGS).set('Authorization', alice.authorization).expect(403);
      expectEnvelopeError(forbidden.body, 403, 'forbidden');
    });

    it('shows an administrator the settings with every credential masked', async () => {
      const response = await app.http.get(SETTINGS).set('Authorization', admin.authorization).expect(200);
      const { settings, source } = response.body.message.data;
      expect(source).to.equal('configuration');
      expect(settings.api_keys).to.deep.equal(['********']);
      expect(JSON.stringify(settings)).to.not.include('retrieval-key');
      expect(settings.max_json_bytes).to.equal(1048576);
    });

    it('answers every error of the login endpoint in the envelope: 400, 405, 413, 415, 422', async () => {
      const cases: Array<
        [number, string, () => Promise<{ status: number; body: { message: Record<string, unknown> } }>]
      > = [
        [
          400,
          'invalid_json',
          () => app.http.post('/api/method/login').set('Content-Type', 'application/json').send('{oops'),
        ],
        [405, 'method_not_allowed', () => app.http.get('/api/method/login')],
        [
          413,
          'payload_too_large',
          () => app.http.post('/api/method/login').send({ usr: 'a', pwd: 'x'.repeat(2_000_000) }),
        ],
        [
          415,
          'unsupported_media_type',
          () => app.http.post('/api/method/login').set('Content-Type', 'text/plain').send('usr=a'),
        ],
        [422, 'validation_error', () => app.http.post('/api/method/login').send({ usr: 'alice' })],
      ];
      for (const [status, type, send] of cases) {
        const response = await send();
        expect(response.status, type).to.equal(status);
        expectEnvelopeError(response.body, status, type);
      }
    });

    it('keeps a users read model for lookups by name, id and key id (no hashes in it)', async () => {
      await app.runtime.projections.waitFor(await app.runtime.eventStore.headPosition(), {
        timeoutMs: 5_000,
      });
      const byName = await app.runtime.users.views.byName(alice.name.toUpperCase());
      expect(byName).to.include({ name: alice.name, admin: false, hasPassword: true });
      expect(await app.runtime.users.views.byId(byName!.id)).to.deep.equal(byName);
      expect(await app.runtime.users.views.byKeyId(alice.keyId)).to.include({
        userId: byName!.id,
        revokedAt: null,
      });
      expect((await app.runtime.users.views.byName(admin.name))?.admin).to.equal(true);
      expect(JSON.stringify(await app.runtime.readModels.find('users'))).to.not.include('scrypt');
    });
  });

  describe('session expiry', () => {
    it('refuses a session after SESSION_TTL_MS, and marks the cookie Secure when asked', async () => {
      const app = await startTestApp({ env: { SESSION_TTL_MS: '1000', SESSION_COOKIE_SECURE: 'true' } });
      try {
        const carol = await addTestUser(app, 'carol');
        const login = await app.http
          .post('/api/method/login')
          .send({ usr: carol.name, pwd: carol.password })
          .expect(200);
        expect(([] as string[]).concat(login.headers['set-cookie'] ?? [])[0])
          .to.include('; Secure')
          .and.include('Max-Age=1;');
        const sid = sidOf(login.headers['set-cookie']);
        await app.http.get(CONFIG).set('Cookie', sid).expect(200);
        await sleep(1_100);
        const expired = await app.http.get(CONFIG).set('Cookie', sid).expect(401);
        expectEnvelopeError(expired.body, 401, 'session_expired');
      } finally {
        await app.stop();
      }
    });
  });

  describe('JWT bearer tokens, HS256', () => {
    let app: TestApp;
    let dave: TestUser;
    const key = new TextEncoder().encode(SECRET);
    const sign = (
      claims: Record<string, unknown>,
      options: { secret?: Uint8Array; expires?: string; issuer?: string } = {},
    ) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt()
        .setIssuer(options.issuer ?? 'https://idp.example')
        .setExpirationTime(options.expires ?? '5m')
        .sign(options.secret ?? key);
    before(async () => {
      app = await startTestApp({
        env: { JWT_SECRET: SECRET, JWT_ISSUER: 'https://idp.example', JWT_ROLES_CLAIM: 'realm_access.roles' },
      });
      dave = await addTestUser(app, 'dave');
    });
    after(() => app.stop());

    it('takes sub as the user (a local one keeps its name and roles) and the roles claim for admin', async () => {
      const local = await app.http
        .get(CONFIG)
        .set('Authorization', `Bearer ${await sign({ sub: dave.name.toUpperCase() })}`)
        .expect(200);
      expect(local.body.message.data.user).to.deep.equal({
        name: dave.name,
        admin: false,
        auth_method: 'jwt',
      });
      const external = await app.http
        .get(CONFIG)
        .set('Authorization', `Bearer ${await sign({ sub: 'erin@idp' })}`)
        .expect(200);
      expect(external.body.message.data.user.name).to.equal('erin@idp');
      const adminToken = await sign({ sub: 'erin@idp', realm_access: { roles: ['user', 'admin'] } });
      await app.http.get(SETTINGS).set('Authorization', `Bearer ${adminToken}`).expect(200);
      await app.http
        .get(SETTINGS)
        .set('Authorization', `Bearer ${await sign({ sub: 'erin@idp' })}`)
        .expect(403);
    });

    it('refuses expired, forged, foreign-issuer and subject-less tokens with 401 and a Bearer challenge', async () => {
      const tokens = {
        expired: await sign({ sub: dave.name }, { expires: '-1m' }),
        forged: await sign({ sub: dave.name }, { secret: new TextEncoder().encode('x'.repeat(40)) }),
        issuer: await sign({ sub: dave.name }, { issuer: 'https://evil.example' }),
        noSub: await sign({}),
        garbage: 'not.a.jwt',
      };
      for (const [name, token] of Object.entries(tokens)) {
        const response = await app.http.get(CONFIG).set('Authorization', `Bearer ${token}`);
        expect(response.status, name).to.equal(401);
        expectEnvelopeError(response.body, 401, 'invalid_token');
        expect(response.headers['www-authenticate'], name).to.match(
          /Bearer realm="archivist", error="invalid_token"/,
        );
      }
      const expired = await app.http.get(CONFIG).set('Authorization', `Bearer ${tokens.expired}`);
      expect(expired.body.message.error.message).to.equal('The token has expired');
      // Without credentials the challenge names both schemes.
      const none = await app.http.get(CONFIG).expect(401);
      expect(none.headers['www-authenticate']).to.equal('Token realm="archivist", Bearer realm="archivist"');
    });
  });

  describe('JWT bearer tokens from a JWKS', () => {
    let server: Server;
    let app: TestApp;
    let privateKey: CryptoKey;
    let strangerKey: CryptoKey;
    before(async () => {
      const pair = await generateKeyPair('ES256');
      privateKey = pair.privateKey;
      strangerKey = (await generateKeyPair('ES256')).privateKey;
      const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
      server = createServer((_request, response) => {
        response.setHeader('Content-Type', 'application/json');
        response.end(JSON.stringify({ keys: [jwk] }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      app = await startTestApp({
        env: { JWT_JWKS_URL: `http://127.0.0.1:${port}/jwks.json`, JWT_AUDIENCE: 'archivist' },
      });
    });
    after(async () => {
      await app.stop();
      server.close();
    });
    const sign = (signer: CryptoKey, audience = 'archivist') =>
      new SignJWT({ sub: 'frank', roles: ['admin'] })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setAudience(audience)
        .setExpirationTime('5m')
        .sign(signer);

    it('accepts a token signed by a key of the JWKS and refuses others', async () => {
      const ok = await app.http
        .get(SETTINGS)
        .set('Authorization', `Bearer ${await sign(privateKey)}`)
        .expect(200);
      expect(ok.body.message.success).to.equal(true);
      await app.http
        .get(CONFIG)
        .set('Authorization', `Bearer ${await sign(strangerKey)}`)
        .expect(401);
      await app.http
        .get(CONFIG)
        .set('Authorization', `Bearer ${await sign(privateKey, 'someone-else')}`)
        .expect(401);
    });
  });
});
