import { expect } from 'chai';
import { clusterMode, skipInCluster } from '../support/cluster.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { createTask } from '../../src/commands/newTask.js';

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

  it('GET /api/v1/health/ready is ready when the required components are, listing every component with its real state', async () => {
    const response = await app.http.get('/api/v1/health/ready').expect(200);
    expect(response.body.ready).to.equal(true);
    const byName = Object.fromEntries(
      (
        response.body.components as Array<{
          name: string;
          healthy: boolean;
          required: boolean;
          reason: string | null;
        }>
      ).map((c) => [c.name, c]),
    );
    // The search index is the embedded read store's own; MongoDB has none to report.
    const searchIndex = clusterMode() ? [] : ['search_index'];
    expect(Object.keys(byName)).to.have.members([
      'event_store',
      'read_store',
      'bus',
      'projections',
      'blob_store',
      'workers',
      'embedder',
      'llm',
      'vector_store',
      'reranker',
      ...searchIndex,
    ]);
    for (const core of ['event_store', 'read_store', 'bus', 'projections', 'blob_store'])
      expect(byName[core], core).to.include({ healthy: true, required: true });
    for (const optional of ['embedder', 'llm', 'vector_store', 'reranker', ...searchIndex, 'workers'])
      expect(byName[optional]!.required, optional).to.equal(false);
    if (clusterMode()) {
      // The cluster's worker processes consume every job queue (this one serves the API only).
      expect(byName['workers']!.healthy).to.equal(true);
      expect(byName['workers']!.reason).to.match(/^\d+ worker process(es)? alive$/);
    } else {
      // This process runs the worker role: every job queue has a live worker.
      expect(byName['workers']).to.deep.include({ healthy: true, reason: '1 worker process alive' });
    }
  });

  it('GET /api/v1/health/stats reports what exists so far', async () => {
    // A cluster's stores hold what every suite made: counts are relative to the start there.
    const before = (await app.http.get('/api/v1/health/stats').expect(200)).body as {
      tasks_by_status: Record<string, number>;
      document_count: number;
      sources_count: number;
    };
    const task = await createTask(
      app.runtime.tasks,
      'nobody-runs-this',
      {},
      { actorId: 'test', correlationId: 'c' },
    );
    await app.runtime.projections.waitFor(task.position);
    const response = await app.http.get('/api/v1/health/stats').expect(200);
    expect(response.body.api_auth_enabled).to.equal(true);
    if (clusterMode()) {
      // Other processes of the cluster may append meanwhile (workers, reactors).
      expect(response.body.head_position).to.be.at.least(task.position);
      expect(response.body.projections_state).to.be.oneOf(['live', 'catching_up']);
      // Tasks of other suites change status meanwhile (the watchdog fails abandoned ones): one more
      // task in all, and this one pending.
      const total = (byStatus: Record<string, number>): number =>
        Object.values(byStatus).reduce((sum, count) => sum + count, 0);
      expect(total(response.body.tasks_by_status)).to.equal(total(before.tasks_by_status) + 1);
      expect(response.body.tasks_by_status['pending']).to.be.at.least(1);
    } else {
      expect(response.body.head_position).to.equal(task.position);
      expect(response.body.projections_state).to.equal('live');
      expect(response.body.tasks_by_status).to.deep.equal({ pending: 1 });
    }
    expect(response.body.projections.map((p: { name: string }) => p.name)).to.have.members([
      'tasks',
      'knowledge',
      'collections',
      'users',
      'conversations',
      'actions',
    ]);
    expect(response.body).to.include({
      document_count: before.document_count,
      sources_count: before.sources_count,
      collection_name: 'chunks_local_hashed_ngrams_384_features_4_v1',
      embedding_model: 'local-hashed-ngrams-384',
      llm_model: 'local-extractive',
      reranker_enabled: false,
    });
    if (clusterMode()) {
      expect(response.body.adapters).to.deep.include({
        port: 'event_store',
        adapter: app.runtime.config.eventStore,
        tested_against: 'PostgreSQL 15 (Debian postgresql-15), started by .ci/run',
        real_server_in_ci: true,
      });
    } else {
      expect(response.body.adapters).to.deep.include({
        port: 'event_store',
        adapter: 'memory',
        tested_against: 'embedded (runs in-process; every CI run)',
        real_server_in_ci: true,
      });
    }
    expect(response.body.vector_store_path).to.match(
      clusterMode() ? /^https?:\/\/[^/]+\/?$/ : /vectors\/chunks_local_hashed_ngrams_384_features_4_v1$/,
    );
  });

  it('a HEAD request to health works like GET without a body', async () => {
    const response = await app.http.head('/api/v1/health').expect(200);
    expect(response.text ?? '').to.equal('');
  });
});

describe('readiness with required optional components and lagging projections', () => {
  let app: TestApp | null = null;
  afterEach(async () => {
    await app?.stop();
    app = null;
  });

  it('an optional component listed in READY_REQUIRES decides readiness', async () => {
    app = await startTestApp({ env: { READY_REQUIRES: 'embedder' } });
    const body = (await app.http.get('/api/v1/health/ready')).body as {
      ready: boolean;
      components: Array<{ name: string; healthy: boolean; required: boolean }>;
    };
    const embedder = body.components.find((c) => c.name === 'embedder')!;
    expect(embedder.required).to.equal(true);
    expect(body.ready).to.equal(embedder.healthy);
  });

  it('refuses an unknown component in READY_REQUIRES at start', async () => {
    let error: unknown = null;
    try {
      app = await startTestApp({ env: { READY_REQUIRES: 'embedder,flux_capacitor' } });
    } catch (caught) {
      error = caught;
      app = await startTestApp();
    }
    expect(String(error)).to.match(/READY_REQUIRES has unknown flux_capacitor/);
  });

  it('ready and stats agree that no projector runs when none applies the lagging projections', async function () {
    skipInCluster(
      this,
      "the cluster's projector applies the projections: stopping this process's changes nothing",
    );
    app = await startTestApp();
    await app.runtime.projections.stop();
    const { position } = await createTask(
      app.runtime.tasks,
      'nobody-runs-this',
      {},
      { actorId: 'test', correlationId: 'c' },
    );
    const ready = await app.http.get('/api/v1/health/ready').expect(503);
    const projections = (ready.body.components as Array<{ name: string; reason: string | null }>).find(
      (c) => c.name === 'projections',
    );
    expect(projections?.reason).to.match(/^no projector running: tasks at \d+, .* of position \d+$/);
    const stats = await app.http.get('/api/v1/health/stats').expect(200);
    expect(stats.body.projections_state).to.equal('stopped');
    const tasks = (stats.body.projections as Array<{ name: string; state: string; position: number }>).find(
      (projection) => projection.name === 'tasks',
    );
    expect(tasks).to.deep.include({ state: 'stopped', holder: null });
    expect(tasks!.position).to.be.lessThan(position);
  });
});
