import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { skipInCluster } from '../support/cluster.js';
import { startPostgresServer, type PostgresServerHandle } from '../support/postgresServer.js';
import { eventually, startTestApp, type TestApp } from '../support/testApp.js';

/**
 * The failure this guards against: while the event log was down, each upload stored its bytes,
 * could not record its task, answered 503 — and left its bytes in the blob store for good (only a
 * task's end releases them), one more blob for every retry a client made during the outage.
 */
describe('uploads while the event log is down', function () {
  this.timeout(120_000);
  let postgres: PostgresServerHandle | null = null;
  let app: TestApp | null = null;
  let dataDir: string;

  before(async function () {
    skipInCluster(
      this,
      "stops and restarts a PostgreSQL of its own; the cluster's event log is shared by every suite",
    );
    postgres = await startPostgresServer({ own: true });
    if (!postgres?.controllable) {
      console.log('      skipped: no PostgreSQL server this test can stop and start (no binaries)');
      this.skip();
    }
    dataDir = await mkdtemp(join(tmpdir(), 'archivist-log-outage-'));
    app = await startTestApp({
      env: {
        DATA_DIR: dataDir,
        EVENT_STORE: 'postgres',
        POSTGRES_URL: postgres!.url,
        ENGINE_TIMEOUT_MS: '500',
        API_KEYS: '',
      },
    });
  });
  after(async () => {
    await app?.stop();
    await postgres?.dispose();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const blobs = () => readdir(join(dataDir, 'blobs')).catch(() => [] as string[]);

  it('answers 503 and keeps none of the bytes it could not give a task, then stores uploads again', async () => {
    const stored = await app!.http
      .post('/api/v1/upload')
      .attach('file', Buffer.from('# Before\n\nStored while the log was up.'), 'before.md')
      .expect(200);
    expect(stored.body).to.include({ success: true });
    await eventually(async () => ((await blobs()).length === 0 ? true : undefined));

    await postgres!.stop();
    const single = await app!.http
      .post('/api/v1/upload/async')
      .attach('file', Buffer.from('# During\n\nSent while the log was down.'), 'during.md')
      .timeout(30_000);
    expect(single.status).to.equal(503);
    expect(single.body).to.include({ error: 'service_unavailable', status_code: 503 });
    const bulk = await app!.http
      .post('/api/v1/upload/bulk')
      .attach('files', Buffer.from('# One\n\nFirst of two.'), 'one.md')
      .attach('files', Buffer.from('# Two\n\nSecond of two.'), 'two.md')
      .timeout(30_000);
    expect(bulk.status).to.equal(503);
    expect(await blobs()).to.deep.equal([]);

    await postgres!.start();
    await eventually(
      async () => {
        const after = await app!.http
          .post('/api/v1/upload')
          .attach('file', Buffer.from('# After\n\nStored once the log was back.'), 'after.md');
        return after.status === 200 && after.body.success === true ? true : undefined;
      },
      60_000,
      'an upload stored once PostgreSQL is back',
    );
  });
});
