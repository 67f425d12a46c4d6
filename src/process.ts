import type { Config } from './config.js';
import { ConfigError } from './config.js';
import type { AppOptions } from './http/app.js';
import type { Logger } from './log.js';
import { ALL_ROLES, type Role } from './roles.js';
import { createRuntime, type Runtime } from './runtime.js';
import type { JobType } from './workers/jobs.js';

export interface RunningProcess {
  runtime: Runtime;
  roles: readonly Role[];
  /** Base URL of its HTTP server: the API, or a worker's or projector's `/metrics` (METRICS_PORT). */
  url: string | null;
  stop(): Promise<void>;
}

export interface ProcessOptions {
  /** Job types this process can run (the product's, and tests' own). */
  jobs?: readonly JobType[];
  /** Extra routes, built with the runtime (tests register their own). */
  app?: (runtime: Runtime) => AppOptions;
}

/**
 * The roles a command runs. Embedded queues and read models live inside one process, so there every
 * command that serves runs all roles; with shared engines each role can run in its own processes.
 */
export function rolesFor(command: 'serve' | 'worker' | 'project', embedded: boolean): Role[] {
  if (embedded) {
    if (command !== 'serve') {
      throw new ConfigError(
        `'archivist ${command}' runs one role against shared engines; with everything embedded (BUS=memory, READ_STORE=embedded) run 'archivist serve', which runs all roles`,
      );
    }
    return [...ALL_ROLES];
  }
  return command === 'serve' ? ['api'] : command === 'worker' ? ['worker'] : ['projector'];
}

async function serve(
  runtime: Runtime,
  options: ProcessOptions,
  log: Logger,
): Promise<{ url: string; close(): Promise<void> }> {
  // Loaded here, not at the top: workers, projectors and the CLI's tools never need the HTTP stack.
  const [{ createApp, uploadDir }, { listen }, { sweepUploads }] = await Promise.all([
    import('./http/app.js'),
    import('./server.js'),
    import('./http/multipart.js'),
  ]);
  // Uploads a killed process left behind. With the folder locked (embedded) none can be in flight;
  // otherwise other API processes may share it, so only uploads older than any request can live go.
  const dir = uploadDir(runtime.config.dataDir);
  const swept = await sweepUploads(dir, runtime.embedded ? 0 : 2 * runtime.config.requestTimeoutMs);
  if (swept > 0) log.info({ dir, files: swept }, 'removed uploads left by an earlier run');
  return listen(createApp(runtime, options.app?.(runtime)), runtime);
}

/** A worker's or projector's own `/metrics` on METRICS_PORT: what it does is measured where it runs. */
async function serveMetrics(runtime: Runtime, log: Logger): Promise<{ url: string; close(): Promise<void> }> {
  const [{ createMetricsApp }, { listen }] = await Promise.all([
    import('./http/metricsApp.js'),
    import('./server.js'),
  ]);
  const { config } = runtime;
  const app = createMetricsApp({ apiKeys: config.apiKeys, metrics: runtime.metrics, log });
  return listen(app, { config: { ...config, port: config.metricsPort } }, 'METRICS_PORT');
}

let unhandledLogged = false;

/**
 * Every engine call is awaited and handled where it is made; a rejection that still escapes is a
 * bug, and ending the process for it would turn a brief engine outage into a lost worker. It is
 * logged (as an error: the fault drills look for it) and the process goes on.
 */
function logUnhandledRejections(log: Logger): void {
  if (unhandledLogged) return;
  unhandledLogged = true;
  process.on('unhandledRejection', (reason) => {
    log.error({ err: reason }, 'unhandled rejection (a bug); the process goes on');
  });
}

/** Starts a process with the given roles: the runtime, and the HTTP server when it serves the API. */
export async function runProcess(
  config: Config,
  log: Logger,
  roles: readonly Role[],
  options: ProcessOptions = {},
): Promise<RunningProcess> {
  logUnhandledRejections(log);
  // Where start-up time goes, from the process's own start: Node and the modules, opening the
  // stores, starting the roles (projections resume from their checkpoints), and serving.
  const phases: Record<string, number> = {};
  let mark = performance.now();
  const lap = (name: string): void => {
    const now = performance.now();
    phases[name] = Math.round(now - mark);
    mark = now;
  };
  phases['boot'] = Math.round(mark);
  const runtime = await createRuntime(config, { log, jobs: options.jobs ?? [] });
  lap('stores');
  let server: { url: string; close(): Promise<void> } | null = null;
  try {
    await runtime.start(roles);
    lap('roles');
    if (roles.includes('api')) server = await serve(runtime, options, log);
    else if (config.metricsPort > 0) server = await serveMetrics(runtime, log);
    lap('http');
  } catch (error) {
    // Release the data folder's lock and every connection: the process is about to exit.
    await runtime.stop().catch(() => undefined);
    throw error;
  }
  if (server && roles.includes('api')) {
    // Load the parsers in the workers now, not on the first upload; likewise the multipart reader
    // and the routes' request schemas on this thread, once it is listening.
    runtime.parser
      .warm()
      .catch((error: unknown) => log.warn({ err: error }, 'could not warm the parse workers'));
    Promise.all([import('./http/multipart.js'), import('./http/mountRoutes.js')])
      .then(async ([multipart, routes]) => {
        await multipart.warmMultipart();
        await routes.warmValidators();
      })
      .catch((error: unknown) => log.warn({ err: error }, 'could not warm the request readers'));
  }
  log.info(
    {
      url: server?.url,
      roles,
      dataDir: config.dataDir,
      embedded: runtime.embedded,
      startupMs: { ...phases, total: Math.round(performance.now()) },
    },
    'Archivist is running',
  );
  return {
    runtime,
    roles,
    url: server?.url ?? null,
    async stop() {
      await server?.close();
      await runtime.stop();
    },
  };
}
