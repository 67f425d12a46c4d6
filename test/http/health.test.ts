import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/testApp.js';

describe('health endpoints', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ env: { API_KEYS: 'secret-key' } });
  });
  after(async () => app.stop());

  it('GET /api/v1/health reports liveness and the version, without a key', async () => {
    const response = await app.http.get('/api/v1/health').expect(200);
    expect(response.body).to.have.all.keys('status', 'version', 'timestamp');
    expect(response.body.status).to.equal('healthy');
    expect(response.body.version).to.equal(app.runtime.version);
    expect(Date.parse(response.body.timestamp)).to.be.closeTo(Date.now(), 5_000);
  });

  it('GET /api/v1/health/ready lists every component with its real state, and is 503 until all are healthy', async () => {
    const response = await app.http.get('/api/v1/health/ready').expect(503);
    expect(response.body.ready).to.equal(false);
    const byName = Object.fromEntries(
      (response.body.components as Array<{ name: string; healthy: boolean; reason: string | null }>).map(
        (c) => [c.name, c],
      ),
    );
    expect(Object.keys(byName)).to.have.members([
      'event_store',
      'read_store',
      'bus',
      'projections',
      'embedder',
      'llm',
      'vector_store',
      'reranker',
    ]);
    for (const core of ['event_store', 'read_store', 'bus', 'projections'])
      expect(byName[core]!.healthy, core).to.equal(true);
    for (const missing of ['embedder', 'llm', 'vector_store', 'reranker']) {
      expect(byName[missing]!.healthy, missing).to.equal(false);
      expect(byName[missing]!.reason).to.match(/not built yet/);
    }
  });

  it('GET /api/v1/health/stats reports what exists so far', async () => {
    const task = await app.runtime.tasks.create(
      'nobody-runs-this',
      {},
      { actorId: 'test', correlationId: 'c' },
    );
    await app.runtime.projections.waitFor(task.position);
    const response = await app.http.get('/api/v1/health/stats').expect(200);
    expect(response.body.api_auth_enabled).to.equal(true);
    expect(response.body.head_position).to.equal(task.position);
    expect(response.body.tasks_by_status).to.deep.equal({ pending: 1 });
    expect(response.body.projections.map((p: { name: string }) => p.name)).to.have.members(['tasks']);
  });

  it('a HEAD request to health works like GET without a body', async () => {
    const response = await app.http.head('/api/v1/health').expect(200);
    expect(response.text ?? '').to.equal('');
  });
});
