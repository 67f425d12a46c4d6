import type Koa from 'koa';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import type { Role } from '../../src/roles.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { clusterMode } from './cluster.js';
import { contractApp, testAppEnv, testAppRoles, type TestApp } from './testApp.js';

/** A clock tests can move forward: real time plus `skipMs`. */
export function createTestClock() {
  const clock = { skipMs: 0, now: (): Date => new Date(Date.now() + clock.skipMs) };
  return clock;
}

/**
 * The product on real SQLite stores in `dataDir` (kept on stop, so another start finds it), with an
 * injected clock and only the given roles: a process without the worker role runs no reactor and no
 * job, as a worker that is down. In cluster mode (test/support/cluster.ts) it is an API process of
 * the cluster instead, on the cluster's engines; the clock is then this process's only.
 */
export async function startToolsApp(
  dataDir: string,
  options: { clock?: () => Date; roles?: readonly Role[]; env?: Record<string, string> } = {},
): Promise<TestApp & { runtime: Runtime; app: Koa }> {
  const defaults: Record<string, string> = clusterMode()
    ? { DATA_DIR: dataDir }
    : { DATA_DIR: dataDir, EVENT_STORE: 'file', TASK_HEARTBEAT_MS: '100' };
  const config = loadConfig(testAppEnv(defaults, options.env));
  const log = createLogger({ level: process.env['TEST_LOG_LEVEL'] ?? 'error' });
  const runtime = await createRuntime(config, { log, ...(options.clock ? { clock: options.clock } : {}) });
  await runtime.start(testAppRoles(options.roles));
  const app = await contractApp(runtime);
  return {
    runtime,
    app,
    http: supertest(app.callback()),
    server: () => Promise.reject(new Error('no server in the tools app')),
    stop: () => runtime.stop(),
  };
}
