import { expect } from 'chai';
import supertest, { type Response } from 'supertest';
import { createApp } from '../../src/http/app.js';
import { RateLimiterUnavailableError, type RateLimiter } from '../../src/rateLimit/rateLimiter.js';
import { capturedLog, LEVEL } from '../support/capturedLog.js';
import { defineRoute } from '../../src/http/route.js';
import { envelope, envelopeSchema } from '../../src/http/assistant/envelope.js';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const API = '/api/method/assistant.api';
type Body = { message: { success: boolean; data: unknown; error?: Record<string, unknown> } };

/** A tool execution as the tools' routes will declare it: only its rate-limit class matters here. */
const toolRoute = defineRoute({
  method: 'post',
  path: '/assistant.api.test_execute_tool',
  operationId: 'testExecuteTool',
  summary: 'A stand-in for a tool execution',
  tags: ['test'],
  rateLimit: 'tools',
  responses: { 200: { description: 'Done', schema: envelopeSchema({ type: 'object' }) } },
  handle: () => Promise.resolve({ body: envelope({ ran: true }) }),
});

function rateHeaders(response: Response): { limit: number; remaining: number; reset: number } {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(response.headers, `${response.status} ${name}`).to.have.property(name);
  }
  return {
    limit: Number(response.headers['x-ratelimit-limit']),
    remaining: Number(response.headers['x-ratelimit-remaining']),
    reset: Number(response.headers['x-ratelimit-reset']),
  };
}

describe('Assistant API rate limits', function () {
  this.timeout(30_000);

  describe('with the default limits', () => {
    let app: TestApp;
    let alice: TestUser;
    before(async () => {
      app = await startTestApp();
      alice = await addTestUser(app, 'alice');
    });
    after(() => app.stop());

    it('puts the headers on every response of every conversation endpoint, errors included', async () => {
      const auth = alice.authorization;
      const created = await app.http
        .post(`${API}.create_conversation`)
        .set('Authorization', auth)
        .send({ title: 'limits' })
        .expect(200);
      const id = (created.body as Body).message.data as { conversation_id: string };
      const responses = [
        created,
        await app.http.get(`${API}.list_conversations`).set('Authorization', auth).expect(200),
        await app.http
          .get(`${API}.get_conversation_history`)
          .query({ conversation_id: id.conversation_id })
          .set('Authorization', auth)
          .expect(200),
        await app.http
          .get(`${API}.search_conversations`)
          .query({ query: 'limits' })
          .set('Authorization', auth)
          .expect(200),
        await app.http
          .delete(`${API}.delete_conversation`)
          .query({ conversation_id: id.conversation_id })
          .set('Authorization', auth)
          .expect(200),
        await app.http
          .post(`${API}.restore_conversation`)
          .set('Authorization', auth)
          .send({ conversation_id: id.conversation_id })
          .expect(200),
        // Errors count and carry the headers too: an unknown conversation, invalid parameters, bad JSON.
        await app.http
          .get(`${API}.get_conversation_history`)
          .query({ conversation_id: 'nope' })
          .set('Authorization', auth)
          .expect(404),
        await app.http
          .get(`${API}.list_conversations`)
          .query({ page_size: 0 })
          .set('Authorization', auth)
          .expect(422),
        await app.http
          .post(`${API}.create_conversation`)
          .set('Authorization', auth)
          .set('Content-Type', 'application/json')
          .send('{"title":')
          .expect(400),
      ];
      const seen = responses.map(rateHeaders);
      expect(seen.map((headers) => headers.limit)).to.deep.equal(Array(9).fill(100));
      expect(seen.map((headers) => headers.remaining)).to.deep.equal([99, 98, 97, 96, 95, 94, 93, 92, 91]);
      for (const { reset } of seen) expect(reset).to.be.within(59, 60);
    });

    it('leaves endpoints of no class unlimited, and anonymous requests are 401 before any count', async () => {
      const config = await app.http
        .get(`${API}.get_config`)
        .set('Authorization', alice.authorization)
        .expect(200);
      expect(config.headers).not.to.have.property('x-ratelimit-limit');
      const anonymous = await app.http.get(`${API}.list_conversations`).expect(401);
      expect(anonymous.headers).not.to.have.property('x-ratelimit-limit');
    });

    it('declares 429 in OpenAPI for limited endpoints only', async () => {
      const { body } = await app.http.get('/openapi.json').expect(200);
      const paths = (body as { paths: Record<string, Record<string, { responses: object }>> }).paths;
      expect(paths['/api/method/assistant.api.list_conversations']!['get']!.responses).to.have.property(
        '429',
      );
      expect(paths['/api/method/assistant.api.get_config']!['get']!.responses).not.to.have.property('429');
    });
  });

  describe('when a limit is reached', () => {
    let app: TestApp;
    let alice: TestUser;
    let bob: TestUser;
    before(async () => {
      app = await startTestApp({
        env: { RATE_LIMIT_CHAT_PER_MINUTE: '3', RATE_LIMIT_TOOLS_PER_MINUTE: '2' },
        app: { assistantRoutes: [toolRoute] },
      });
      alice = await addTestUser(app, 'alice');
      bob = await addTestUser(app, 'bob');
    });
    after(() => app.stop());

    it('answers 429 with the envelope, Retry-After and the headers; other users keep their own window', async () => {
      const list = (user: TestUser) =>
        app.http.get(`${API}.list_conversations`).set('Authorization', user.authorization);
      await list(alice).expect(200);
      // Every endpoint of the class counts against the same window.
      await app.http
        .post(`${API}.create_conversation`)
        .set('Authorization', alice.authorization)
        .send({})
        .expect(200);
      await app.http
        .get(`${API}.search_conversations`)
        .query({ query: 'x' })
        .set('Authorization', alice.authorization)
        .expect(200);
      const refused = await list(alice).expect(429);
      expect((refused.body as Body).message).to.include({ success: false, data: null });
      expect((refused.body as Body).message.error).to.include({ type: 'rate_limited', status_code: 429 });
      expect((refused.body as Body).message.error!['message']).to.match(/3 chat requests per 60 s/);
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).to.be.within(59, 60);
      expect(rateHeaders(refused)).to.deep.equal({ limit: 3, remaining: 0, reset: retryAfter });
      // A refused request with a body is refused before the body is read.
      await app.http
        .post(`${API}.create_conversation`)
        .set('Authorization', alice.authorization)
        .set('Content-Type', 'application/json')
        .send('not json')
        .expect(429);

      expect(rateHeaders(await list(bob).expect(200))).to.include({ limit: 3, remaining: 2 });
    });

    it('counts tool executions in a class of their own', async () => {
      const execute = () => app.http.post(`${API}.test_execute_tool`).set('Authorization', bob.authorization);
      expect(rateHeaders(await execute().expect(200))).to.include({ limit: 2, remaining: 1 });
      expect(rateHeaders(await execute().expect(200))).to.include({ limit: 2, remaining: 0 });
      const refused = await execute().expect(429);
      expect((refused.body as Body).message.error).to.include({ type: 'rate_limited' });
      expect(refused.headers).to.have.property('retry-after');
      // Bob's chat window is untouched by his tool executions (one request from the previous test).
      const chat = await app.http
        .get(`${API}.list_conversations`)
        .set('Authorization', bob.authorization)
        .expect(200);
      expect(rateHeaders(chat)).to.include({ limit: 3, remaining: 1 });
    });
  });

  describe('while the shared limiter is unavailable', () => {
    let app: TestApp;
    let alice: TestUser;
    before(async () => {
      app = await startTestApp({ env: { RATE_LIMIT_CHAT_PER_MINUTE: '2' } });
      alice = await addTestUser(app, 'alice');
    });
    after(() => app.stop());

    it('limits per process, with the same headers and 429s, and says so in the log', async () => {
      const down: RateLimiter = {
        take: () => Promise.reject(new RateLimiterUnavailableError('no NATS')),
        close: () => Promise.resolve(),
      };
      const { log, lines } = capturedLog();
      const http = supertest(
        createApp({
          ...app.runtime,
          log,
          rateLimits: { ...app.runtime.rateLimits, limiter: down },
        }).callback(),
      );
      const list = () => http.get(`${API}.list_conversations`).set('Authorization', alice.authorization);
      expect(rateHeaders(await list().expect(200))).to.include({ limit: 2, remaining: 1 });
      expect(rateHeaders(await list().expect(200))).to.include({ limit: 2, remaining: 0 });
      await list().expect(429);
      const warnings = lines.filter(
        (line) => line.level === LEVEL.warn && /rate limits unavailable/.test(line.msg),
      );
      expect(warnings).to.have.length(1); // once, not once per request
    });
  });
});
