import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Koa from 'koa';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { createApp, type AppOptions } from '../../src/http/app.js';
import { createLogger, type Logger } from '../../src/log.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { listen, type RunningServer } from '../../src/server.js';
import type { JobType } from '../../src/workers/jobs.js';
import { responseContract } from './responseContract.js';

export interface TestApp {
  runtime: Runtime;
  app: Koa;
  http: ReturnType<typeof supertest>;
  /** A real listening server, for streaming responses (started on first use). */
  server(): Promise<RunningServer>;
  stop(): Promise<void>;
}

/**
 * The whole product in memory (memory event store, in-memory read store and bus), with the real
 * app, runtime, projections, workers and watchdog. `env` overrides configuration variables.
 */
export async function startTestApp(
  options: { env?: Record<string, string>; jobs?: JobType[]; app?: AppOptions; log?: Logger } = {},
): Promise<TestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'archivist-app-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    EVENT_STORE: 'memory',
    LOG_LEVEL: 'silent',
    PORT: '0',
    TASK_HEARTBEAT_MS: '100',
    ...options.env,
  });
  // Errors only, so an unexpected 500 in a test says why (TEST_LOG_LEVEL=debug for everything).
  const log = options.log ?? createLogger({ level: process.env['TEST_LOG_LEVEL'] ?? 'error' });
  const runtime = await createRuntime(config, { log, jobs: options.jobs ?? [] });
  await runtime.start();
  const app = createApp(runtime, options.app);
  // Every response is checked against the OpenAPI document the app itself publishes.
  const published = await supertest(app.callback()).get('/openapi.json');
  app.middleware.unshift(responseContract(published.body as Parameters<typeof responseContract>[0]));
  let running: RunningServer | null = null;
  return {
    runtime,
    app,
    http: supertest(app.callback()),
    async server() {
      running ??= await listen(app, runtime);
      return running;
    },
    async stop() {
      await running?.close();
      await runtime.stop();
      if (!options.env?.['DATA_DIR']) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export { eventually, sleep } from './eventually.js';
