import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Koa from 'koa';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { createApp, type AppOptions } from '../../src/http/app.js';
import { createLogger, type Logger } from '../../src/log.js';
import type { Role } from '../../src/roles.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { listen, type RunningServer } from '../../src/server.js';
import type { JobType } from '../../src/workers/jobs.js';
import { clusterConfigEnv, clusterMode } from './cluster.js';
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
 * The configuration variables of a test app: `defaults`, then the suite's `env`. In cluster mode
 * (test/support/cluster.ts) the cluster's engines replace whatever the suite chose for them.
 */
export function testAppEnv(defaults: Record<string, string>, env: Record<string, string> = {}) {
  const chosen = { LOG_LEVEL: 'silent', PORT: '0', ...defaults, ...env };
  return clusterMode() ? clusterConfigEnv(chosen) : chosen;
}

/**
 * The roles a test app runs: `roles` (every one by default) embedded; in cluster mode the API role
 * only, so that the cluster's own workers and projector run the jobs and apply the projections.
 */
export const testAppRoles = (roles?: readonly Role[]): readonly Role[] | undefined =>
  clusterMode() ? ['api'] : roles;

/** The real app, checking every response against the OpenAPI document it publishes. */
export async function contractApp(runtime: Runtime, options?: AppOptions): Promise<Koa> {
  const app = createApp(runtime, options);
  const published = await supertest(app.callback()).get('/openapi.json');
  app.middleware.unshift(responseContract(published.body as Parameters<typeof responseContract>[0]));
  return app;
}

/**
 * The whole product in memory (memory event store, in-memory read store and bus), with the real
 * app, runtime, projections, workers and watchdog. `env` overrides configuration variables.
 *
 * With `ARCHIVIST_TEST_CLUSTER` set, the app is one more API process of that running cluster: its
 * engines (shared with every other suite), the API role only; see test/support/cluster.ts.
 */
export async function startTestApp(
  options: {
    env?: Record<string, string>;
    jobs?: JobType[];
    app?: AppOptions;
    log?: Logger;
    /** The roles it runs (every one by default): without `worker`, tasks stay where a test puts them. */
    roles?: readonly Role[];
  } = {},
): Promise<TestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'archivist-app-'));
  // Embedded, a short heartbeat makes workers' claims and liveness quick to observe; a cluster's
  // API process keeps the defaults its fellow processes run with.
  const defaults: Record<string, string> = clusterMode()
    ? { DATA_DIR: dataDir }
    : { DATA_DIR: dataDir, EVENT_STORE: 'memory', TASK_HEARTBEAT_MS: '100' };
  const config = loadConfig(testAppEnv(defaults, options.env));
  // Errors only, so an unexpected 500 in a test says why (TEST_LOG_LEVEL=debug for everything).
  const log = options.log ?? createLogger({ level: process.env['TEST_LOG_LEVEL'] ?? 'error' });
  const runtime = await createRuntime(config, { log, jobs: options.jobs ?? [] });
  try {
    await runtime.start(testAppRoles(options.roles));
  } catch (error) {
    await runtime.stop().catch(() => undefined);
    throw error;
  }
  // Every response is checked against the OpenAPI document the app itself publishes.
  const app = await contractApp(runtime, options.app);
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
