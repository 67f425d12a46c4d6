import { expect } from 'chai';
import { InvalidStateError } from '../../src/domain/shared/index.js';
import { EventStoreUnavailableError } from '../../src/eventStore/eventStore.js';
import { errorSchema } from '../../src/http/retrieval/schemas.js';
import { defineRoute } from '../../src/http/route.js';
import { addTestUser } from '../support/assistantUsers.js';
import { capturedLog, LEVEL } from '../support/capturedLog.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const echo = defineRoute({
  method: 'post',
  path: '/test/echo',
  operationId: 'testEcho',
  summary: 'Echoes a validated body (test only)',
  tags: ['Test'],
  body: {
    contentType: 'application/json',
    schema: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 20 },
        count: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
      },
      additionalProperties: false,
    },
  },
  responses: { 200: { description: 'The body', schema: { type: 'object', required: ['name', 'count'] } } },
  async handle({ body }) {
    return { body };
  },
});

const failing = (error: Error) =>
  defineRoute({
    method: 'get',
    path: `/test/fail/${error.name}`,
    operationId: `testFail${error.name}`,
    summary: 'Throws (test only)',
    tags: ['Test'],
    responses: { 409: { description: 'A state conflict', schema: errorSchema } },
    async handle() {
      throw error;
    },
  });

const assistantEcho = defineRoute({
  method: 'post',
  path: '/assistant.api.test_echo',
  operationId: 'assistantTestEcho',
  summary: 'Echo (test only)',
  tags: ['Test'],
  public: true,
  body: {
    contentType: 'application/json',
    schema: { type: 'object', required: ['user_message'], properties: { user_message: { type: 'string' } } },
  },
  responses: {
    200: { description: 'The body, in the envelope', schema: { type: 'object', required: ['message'] } },
  },
  async handle({ body }) {
    return { body: { message: { success: true, data: body } } };
  },
});

describe('bad input and error shapes', () => {
  let app: TestApp;
  const captured = capturedLog('info');
  before(async () => {
    app = await startTestApp({
      log: captured.log,
      env: { MAX_JSON_BYTES: '2048' },
      app: {
        retrievalRoutes: [
          echo,
          failing(new TypeError('secret internals')),
          failing(new EventStoreUnavailableError('disk full')),
          failing(new InvalidStateError('conflicting_state', 'not now')),
        ],
        assistantRoutes: [assistantEcho],
      },
    });
  });
  after(async () => app.stop());

  const expectRetrievalError = (body: Record<string, unknown>, status: number, error: string) => {
    expect(body).to.include({ status_code: status, error });
    expect(body['detail']).to.be.a('string').and.not.empty;
    expect(Date.parse(body['timestamp'] as string)).to.be.closeTo(Date.now(), 10_000);
  };

  it('accepts a valid body and applies defaults', async () => {
    const response = await app.http.post('/api/v1/test/echo').send({ name: 'ada' }).expect(200);
    expect(response.body).to.deep.equal({ name: 'ada', count: 1 });
  });

  it('rejects malformed JSON with 400 invalid_json', async () => {
    const response = await app.http
      .post('/api/v1/test/echo')
      .set('Content-Type', 'application/json')
      .send('{"name": "ada",')
      .expect(400);
    expectRetrievalError(response.body, 400, 'invalid_json');
  });

  it('rejects valid JSON that is not an object with 422, like any wrong type', async () => {
    for (const raw of ['"just a string"', '42', 'null', 'true', '[1]']) {
      const response = await app.http
        .post('/api/v1/test/echo')
        .set('Content-Type', 'application/json')
        .send(raw)
        .expect(422);
      expectRetrievalError(response.body, 422, 'validation_error');
      expect(response.body.errors, raw).to.deep.equal([
        { location: 'body', field: '', message: 'must be object' },
      ]);
    }
  });

  it('rejects wrong types and out-of-range values with 422, naming each field', async () => {
    const response = await app.http
      .post('/api/v1/test/echo')
      .send({ name: 5, count: 11, tags: ['a', 'b', 'c', 'd'] })
      .expect(422);
    expectRetrievalError(response.body, 422, 'validation_error');
    expect(response.body.errors.map((e: { field: string }) => e.field)).to.have.members([
      'name',
      'count',
      'tags',
    ]);
    for (const issue of response.body.errors) expect(issue.location).to.equal('body');
  });

  it('does not coerce JSON types: "3" is not an integer in a body', async () => {
    await app.http.post('/api/v1/test/echo').send({ name: 'x', count: '3' }).expect(422);
  });

  it('reports a missing required field, and an empty body as missing fields', async () => {
    const response = await app.http.post('/api/v1/test/echo').send({}).expect(422);
    expect(response.body.errors).to.deep.equal([{ location: 'body', field: 'name', message: 'is required' }]);
    await app.http.post('/api/v1/test/echo').expect(422);
  });

  it('drops unknown fields instead of failing', async () => {
    const response = await app.http.post('/api/v1/test/echo').send({ name: 'x', admin: true }).expect(200);
    expect(response.body).to.deep.equal({ name: 'x', count: 1 });
  });

  it('rejects a body over the size limit with 413', async () => {
    const response = await app.http
      .post('/api/v1/test/echo')
      .send({ name: 'x', padding: 'y'.repeat(5_000) })
      .expect(413);
    expectRetrievalError(response.body, 413, 'payload_too_large');
  });

  it('rejects a non-JSON content type with 415', async () => {
    const response = await app.http
      .post('/api/v1/test/echo')
      .set('Content-Type', 'text/plain')
      .send('name=ada')
      .expect(415);
    expectRetrievalError(response.body, 415, 'unsupported_media_type');
  });

  it('answers 405 with Allow for a known path and the wrong method', async () => {
    const response = await app.http.get('/api/v1/test/echo').expect(405);
    expectRetrievalError(response.body, 405, 'method_not_allowed');
    expect(response.headers['allow']).to.include('POST');
  });

  it('answers 404 in the right shape for unknown routes', async () => {
    expectRetrievalError((await app.http.get('/api/v1/nothing-here').expect(404)).body, 404, 'not_found');
    expectRetrievalError((await app.http.get('/../../etc/passwd').expect(404)).body, 404, 'not_found');
    const user = await addTestUser(app, 'error-shapes');
    const assistant = await app.http
      .post('/api/method/assistant.api.no_such_endpoint')
      .set('Authorization', user.authorization)
      .send({})
      .expect(404);
    expect(assistant.body).to.deep.equal({
      message: {
        success: false,
        data: null,
        tokens_used: { input: 0, output: 0, total: 0 },
        error: {
          type: 'not_found',
          message: 'No endpoint POST /api/method/assistant.api.no_such_endpoint',
          status_code: 404,
        },
      },
    });
  });

  it('uses the assistant envelope for assistant errors, validation included', async () => {
    await app.http.post('/api/method/assistant.api.test_echo').send({ user_message: 'hi' }).expect(200);
    const response = await app.http
      .post('/api/method/assistant.api.test_echo')
      .send({ user_message: 7 })
      .expect(422);
    expect(response.body.message.success).to.equal(false);
    expect(response.body.message.error).to.include({ type: 'validation_error', status_code: 422 });
    const malformed = await app.http
      .post('/api/method/assistant.api.test_echo')
      .set('Content-Type', 'application/json')
      .send('{oops')
      .expect(400);
    expect(malformed.body.message.error.type).to.equal('invalid_json');
  });

  /** The lines a request logged at warn or above, by its correlation id. */
  const loggedAbove = (response: { headers: Record<string, string> }) =>
    captured.lines.filter(
      (line) => line.level >= LEVEL.warn && line['correlationId'] === response.headers['x-request-id'],
    );

  it('hides internal errors behind a 500 without details, and logs them once as errors with the stack', async () => {
    const response = await app.http.get('/api/v1/test/fail/TypeError').expect(500);
    expectRetrievalError(response.body, 500, 'internal_error');
    expect(JSON.stringify(response.body)).to.not.include('secret internals');
    const [logged, ...more] = loggedAbove(response);
    expect(more).to.deep.equal([]);
    expect(logged).to.include({ level: LEVEL.error, msg: 'request failed' });
    expect((logged!['err'] as { stack: string }).stack).to.include('secret internals');
  });

  it('answers 503 with Retry-After when a store is unavailable, logged once as a warning', async () => {
    const response = await app.http.get('/api/v1/test/fail/EventStoreUnavailableError').expect(503);
    expectRetrievalError(response.body, 503, 'service_unavailable');
    expect(response.headers['retry-after']).to.equal('5');
    const [logged, ...more] = loggedAbove(response);
    expect(more).to.deep.equal([]);
    expect(logged).to.include({ level: LEVEL.warn, msg: 'request failed', type: 'service_unavailable' });
  });

  it('maps a domain state conflict to 409 with its code', async () => {
    const response = await app.http.get('/api/v1/test/fail/InvalidStateError').expect(409);
    expectRetrievalError(response.body, 409, 'conflicting_state');
  });

  it('echoes a sane X-Request-ID and replaces an unsafe one', async () => {
    const kept = await app.http.get('/api/v1/health').set('X-Request-ID', 'client-123').expect(200);
    expect(kept.headers['x-request-id']).to.equal('client-123');
    const replaced = await app.http
      .get('/api/v1/health')
      .set('X-Request-ID', 'bad id\twith spaces')
      .expect(200);
    expect(replaced.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
  });
});
