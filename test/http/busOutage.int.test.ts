import { expect } from 'chai';
import type { TaskView } from '../../src/projections/tasksProjection.js';
import { TASKS } from '../../src/projections/tasksProjection.js';
import { SCRAPE_JOB } from '../../src/knowledge/scrapeJob.js';
import { skipInCluster } from '../support/cluster.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { eventually, startTestApp, type TestApp } from '../support/testApp.js';

/**
 * The failure this guards against: a synchronous upload made while NATS was away waited for its task
 * without end (over 120 s), because no worker could be told to start it.
 */
describe('synchronous ingestion while NATS is away', function () {
  this.timeout(120_000);
  let nats: NatsServerHandle | null = null;
  let app: TestApp | null = null;

  before(async function () {
    skipInCluster(
      this,
      "stops and restarts a nats-server of its own; the cluster's bus is shared by every suite",
    );
    nats = await startNatsServer({ own: true });
    if (!nats?.controllable) {
      console.log('      skipped: no nats-server this test can stop and start (nats-server not on PATH)');
      this.skip();
    }
    app = await startTestApp({
      env: { BUS: 'nats', NATS_URL: nats!.url, ENGINE_TIMEOUT_MS: '500', API_KEYS: '' },
    });
  });
  after(async () => {
    await app?.stop();
    await nats?.dispose();
  });

  it('answers 503 with Retry-After in bounded time, withdraws the task it could not start, and works again after', async () => {
    await nats!.stop();
    const upload = await app!.http
      .post('/api/v1/upload')
      .attach('file', Buffer.from('# Outage\n\nWritten while the bus was away.'), 'outage.md')
      .timeout(30_000);
    expect(upload.status).to.equal(503);
    expect(upload.headers['retry-after']).to.match(/^\d+$/);
    expect(upload.body).to.include({ error: 'service_unavailable', status_code: 503 });

    // No bytes to store first: the task is created, and no worker can be told to start it.
    const scrape = await app!.http
      .post('/api/v1/scrape')
      .send({ url: 'https://example.invalid/page' })
      .timeout(30_000);
    expect(scrape.status).to.equal(503);
    expect(scrape.headers['retry-after']).to.match(/^\d+$/);
    expect(scrape.body.detail).to.match(/no worker could start the task within 500 ms/);
    const withdrawn = await app!.runtime.readModels.find<TaskView>(TASKS, {
      filter: { jobType: SCRAPE_JOB },
    });
    expect(withdrawn.map((task) => task.status)).to.deep.equal(['cancelled']);

    await nats!.restart();
    const again = await eventually(
      async () => {
        const response = await app!.http
          .post('/api/v1/upload')
          .attach('file', Buffer.from('# Back\n\nWritten once the bus was back.'), 'back.md');
        return response.status === 200 ? response : undefined;
      },
      60_000,
      'an upload to succeed once NATS is back',
    );
    expect(again.body).to.include({ success: true });
  });
});
