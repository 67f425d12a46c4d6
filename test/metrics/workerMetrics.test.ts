import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { operator } from '../../src/cli/adminCommand.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { runProcess, type RunningProcess } from '../../src/process.js';
import { freePort } from '../support/freePort.js';
import { taskCompleted } from '../support/taskCompleted.js';

const SERVICE_KEY = 'worker-metrics-key';

/**
 * A process without the API (what `archivist worker` and `archivist project` run) serves its own
 * `/metrics` on METRICS_PORT: the ingestions its workers ran are measured where they ran.
 */
describe('metrics of a process without the API (METRICS_PORT)', function () {
  this.timeout(120_000);
  let dataDir: string;
  let running: RunningProcess;
  let url: string;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'archivist-worker-metrics-'));
    const port = await freePort();
    const config = loadConfig({
      DATA_DIR: dataDir,
      API_KEYS: SERVICE_KEY,
      METRICS_PORT: String(port),
      LOG_LEVEL: 'silent',
    });
    running = await runProcess(config, silentLogger, ['worker', 'projector']);
    url = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    await running?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const scrape = () => fetch(`${url}/metrics`, { headers: { 'X-API-Key': SERVICE_KEY } });

  it('serves /metrics there, guarded like the API, and nothing else', async () => {
    expect(running.url).to.equal(url);
    expect((await fetch(`${url}/metrics`)).status).to.equal(401);
    expect((await fetch(`${url}/metrics`, { headers: { 'X-API-Key': 'wrong' } })).status).to.equal(403);
    const other = await fetch(`${url}/api/v1/health`, { headers: { 'X-API-Key': SERVICE_KEY } });
    expect(other.status).to.equal(404);
    expect(await other.json()).to.include({ error: 'not_found', status_code: 404 });
    const post = await fetch(`${url}/metrics`, { method: 'POST', headers: { 'X-API-Key': SERVICE_KEY } });
    expect(post.status).to.equal(405);
    expect(post.headers.get('allow')).to.equal('GET, HEAD');
    const scraped = await scrape();
    expect(scraped.status).to.equal(200);
    expect(scraped.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
  });

  it("reports the stages of the ingestions this process's workers ran", async () => {
    const { runtime } = running;
    const started = await runtime.library.startUpload(
      { fileName: 'ferry.md', bytes: Buffer.from('# Ferry\n\nThe ferry leaves at six every morning.\n') },
      { section: 'uploaded', skipDuplicates: true },
      operator(),
    );
    if ('refused' in started) throw new Error(started.refused);
    await taskCompleted(runtime.eventStore, started.taskId, 60_000);
    const text = await (await scrape()).text();
    for (const stage of ['parse', 'embed', 'index']) {
      const count = text
        .split('\n')
        .find((line) =>
          line.startsWith(`archivist_ingestion_stage_duration_seconds_count{stage="${stage}"}`),
        );
      expect(count, stage).to.be.a('string');
      expect(Number(count!.slice(count!.lastIndexOf(' ') + 1)), stage).to.equal(1);
    }
  });
});
