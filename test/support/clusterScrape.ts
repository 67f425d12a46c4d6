import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clusterMode } from './cluster.js';
import type { TestApp } from './testApp.js';

let probe: Promise<boolean> | null = null;

/**
 * Whether the cluster's workers fetch loopback addresses. Scrapes run in the workers, under their own
 * SCRAPE_ALLOWED_HOSTS (whatever `bash scripts/cluster.sh up` was started with), not under the test
 * app's. Asked once per run, by scraping a local address that answers 404: nothing is stored either way.
 */
function clusterScrapesLoopback(app: Pick<TestApp, 'http'>): Promise<boolean> {
  probe ??= (async () => {
    const server = createServer((_request, response) => void response.writeHead(404).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await app.http
        .post('/api/v1/scrape')
        .send({ url: `http://127.0.0.1:${port}/probe` })
        .expect(200);
      return !/private, loopback/.test(String((response.body as { error?: unknown }).error));
    } finally {
      server.close();
    }
  })();
  return probe;
}

/** Skips a test that scrapes a local server in cluster mode, when the cluster's workers refuse loopback. */
export async function skipUnlessClusterScrapesLoopback(context: Mocha.Context, app: TestApp): Promise<void> {
  if (!clusterMode() || (await clusterScrapesLoopback(app))) return;
  console.log(
    "      skipped: the cluster's workers refuse loopback addresses (start it with SCRAPE_ALLOWED_HOSTS=127.0.0.0/8 to scrape the test's local pages)",
  );
  context.skip();
}

/** Skips a test of the default address policy in cluster mode, when the cluster's workers allow loopback. */
export async function skipIfClusterScrapesLoopback(context: Mocha.Context, app: TestApp): Promise<void> {
  if (!clusterMode() || !(await clusterScrapesLoopback(app))) return;
  console.log(
    "      skipped: the cluster's workers are started with SCRAPE_ALLOWED_HOSTS letting loopback through, and scrapes follow their policy, not this API process's",
  );
  context.skip();
}
