import { expect } from 'chai';
import { Ajv } from 'ajv';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { createTask } from '../../src/commands/newTask.js';

describe('OpenAPI and documentation pages', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ env: { API_KEYS: 'k' } });
  });
  after(async () => app.stop());

  it('serves an OpenAPI 3.1 document describing every endpoint of the build', async () => {
    const { body } = await app.http.get('/openapi.json').expect(200);
    expect(body.openapi).to.equal('3.1.0');
    expect(body.info.version).to.equal(app.runtime.version);
    // Rendered as Markdown by the docs pages: a bare <endpoint> would vanish as an HTML tag.
    expect(body.info.description).to.include('`/api/method/assistant.api.<endpoint>`');
    expect(body.info.description.replace(/`[^`]*`/g, '')).not.to.match(/<[a-z]/);
    expect(Object.keys(body.paths)).to.include.members([
      '/api/v1/health',
      '/api/v1/health/ready',
      '/api/v1/health/stats',
      '/api/v1/tasks',
      '/api/v1/tasks/{task_id}',
      '/api/v1/tasks/{task_id}/events',
    ]);
    const list = body.paths['/api/v1/tasks'].get;
    expect(list.parameters).to.deep.include({
      name: 'limit',
      in: 'query',
      required: false,
      description: 'Most tasks returned (1-200)',
      schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    });
    // A service's key, or a user's key pair (a JWT too when configured): alternatives.
    expect(list.security).to.deep.equal([{ ApiKeyAuth: [] }, { ApiKeyPair: [] }]);
    expect(body.paths['/api/v1/health'].get.security).to.deep.equal([]);
    expect(body.components.securitySchemes.ApiKeyAuth).to.include({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    });
    const operationIds = Object.values(body.paths).flatMap((item) =>
      Object.values(item as Record<string, { operationId: string }>).map((op) => op.operationId),
    );
    expect(new Set(operationIds).size).to.equal(operationIds.length);
  });

  it('describes responses truthfully: a real task response validates against its published schema', async () => {
    const { body } = await app.http.get('/openapi.json').expect(200);
    const { taskId, position } = await createTask(
      app.runtime.tasks,
      'unknown',
      { a: 1 },
      { actorId: 't', correlationId: 'c' },
    );
    await app.runtime.projections.waitFor(position);
    const listed = await app.http.get('/api/v1/tasks').set('X-API-Key', 'k').expect(200);
    const one = await app.http.get(`/api/v1/tasks/${taskId}`).set('X-API-Key', 'k').expect(200);
    const ajv = new Ajv({ strict: false, validateFormats: false });
    const expectValid = (path: string, status: number, response: unknown) => {
      const schema = body.paths[path].get.responses[String(status)].content['application/json'].schema;
      expect(ajv.validate(schema, response), `${path} ${status}: ${JSON.stringify(ajv.errors)}`).to.equal(
        true,
      );
    };
    expectValid('/api/v1/tasks', 200, listed.body);
    expectValid('/api/v1/tasks/{task_id}', 200, one.body);
    expectValid('/api/v1/health', 200, (await app.http.get('/api/v1/health').expect(200)).body);
    expectValid('/api/v1/health/stats', 200, (await app.http.get('/api/v1/health/stats').expect(200)).body);
    const failure = await app.http.get('/api/v1/tasks?limit=0').set('X-API-Key', 'k').expect(422);
    expectValid('/api/v1/tasks', 422, failure.body);
  });

  it('serves Swagger UI at /docs to try requests and at /redoc to read, with their assets, offline', async () => {
    const docs = await app.http.get('/docs').expect(200);
    expect(docs.headers['content-type']).to.match(/text\/html/);
    expect(docs.text).to.include('/openapi.json').and.include('/docs/swagger-ui-bundle.js');
    const bundle = await app.http.get('/docs/swagger-ui-bundle.js').expect(200);
    expect(bundle.headers['content-type']).to.match(/javascript/);
    expect(Number(bundle.headers['content-length'])).to.be.greaterThan(500_000);
    await app.http.get('/docs/swagger-ui.css').expect(200);
    expect(docs.text).to.not.include('supportedSubmitMethods');
    const reference = await app.http.get('/redoc').expect(200);
    expect(reference.headers['content-type']).to.match(/text\/html/);
    // The reading page lists every operation and offers no "Try it out".
    expect(reference.text).to.include("url: '/openapi.json'").and.include('supportedSubmitMethods: []');
    expect(reference.text).to.include('/docs/swagger-ui-bundle.js');
    await app.http.get('/docs/../package.json').expect(404);
  });

  it('answers / with links to the APIs and the docs', async () => {
    const { body } = await app.http.get('/').expect(200);
    expect(body).to.include({ name: 'Archivist', docs: '/docs', redoc: '/redoc', openapi: '/openapi.json' });
    expect(body.apis).to.deep.equal({
      retrieval: '/api/v1',
      assistant: '/api/method/assistant.api.<endpoint>',
      openai: '/v1',
    });
  });
});
