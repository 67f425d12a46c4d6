import { expect } from 'chai';
import { addTestUser } from '../support/assistantUsers.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const SERVICE_KEY = 'metrics-service-key';

/** The value of one series in Prometheus' text format, or undefined when it is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const matches = Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`));
    if (matches) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

/**
 * `GET /metrics` in Prometheus' format, from the real app: the requests it served by route
 * template, the stages of an ingestion, the models it called, its rate-limit refusals, and on scrape
 * the task queue and the projections' lag.
 */
describe('metrics (/metrics, Prometheus)', function () {
  this.timeout(60_000);
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ env: { API_KEYS: SERVICE_KEY, RATE_LIMIT_TOOLS_PER_MINUTE: '1' } });
  });
  after(async () => app.stop());

  const scrape = async (): Promise<string> => {
    const response = await app.http.get('/metrics').set('X-API-Key', SERVICE_KEY).expect(200);
    expect(response.headers['content-type']).to.match(/^text\/plain; version=0\.0\.4/);
    return response.text;
  };

  it('is guarded like the Retrieval API', async () => {
    await app.http.get('/metrics').expect(401);
    await app.http.get('/metrics').set('X-API-Key', 'wrong').expect(403);
  });

  it('counts requests by route template and status, ingestion stages, model calls and rate-limit refusals', async () => {
    const uploaded = await app.http
      .post('/api/v1/upload')
      .set('X-API-Key', SERVICE_KEY)
      .attach(
        'file',
        Buffer.from('# Weirs\n\nThe weir is checked after each flood by the warden.\n'),
        'weirs.md',
      )
      .expect(200);
    const docId = (uploaded.body as { doc_id: string }).doc_id;
    await app.http.get(`/api/v1/documents/${docId}`).set('X-API-Key', SERVICE_KEY).expect(200);
    await app.http.get('/api/v1/documents/no-such-document').set('X-API-Key', SERVICE_KEY).expect(404);
    const alice = await addTestUser(app, 'alice');
    const tool = () =>
      app.http
        .post('/api/method/assistant.api.execute_tool')
        .set('Authorization', alice.authorization)
        .send({ tool_name: 'knowledge_stats', params: {} });
    await tool().expect(200);
    await tool().expect(429);

    const text = await scrape();
    const requests = 'archivist_http_request_duration_seconds_count';
    expect(sample(text, requests, { method: 'POST', route: 'POST /api/v1/upload', status: '200' })).to.equal(
      1,
    );
    expect(
      sample(text, requests, { route: 'GET /api/v1/documents/{doc_id}', status: '200' }),
      'by template, not by id',
    ).to.equal(1);
    expect(sample(text, requests, { route: 'GET /api/v1/documents/{doc_id}', status: '404' })).to.equal(1);
    for (const stage of ['parse', 'chunk', 'claim', 'embed', 'index']) {
      expect(sample(text, 'archivist_ingestion_stage_duration_seconds_count', { stage }), stage).to.equal(1);
    }
    expect(
      sample(text, 'archivist_model_request_duration_seconds_count', { kind: 'embedder', outcome: 'ok' }),
    ).to.be.greaterThan(0);
    expect(sample(text, 'archivist_rate_limit_refusals_total', { class: 'tools' })).to.equal(1);
    expect(sample(text, 'archivist_tasks_open', { status: 'pending' })).to.equal(0);
    expect(sample(text, 'archivist_projection_lag_events', { projection: 'knowledge' })).to.be.a('number');
    expect(sample(text, 'archivist_process_resident_memory_bytes')).to.be.greaterThan(0);
  });
});
