import type { Config } from './config.js';
import { ConfigError } from './config.js';
import type { AppOptions } from './http/app.js';
import type { Logger } from './log.js';
import { ALL_ROLES, createRuntime, type Role, type Runtime } from './runtime.js';
import type { JobType } from './workers/jobs.js';

export interface RunningProcess {
  runtime: Runtime;
  roles: readonly Role[];
  /** Base URL of the HTTP server, when this process serves the API. */
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

/** Starts a process with the given roles: the runtime, and the HTTP server when it serves the API. */
export async function runProcess(
  config: Config,
  log: Logger,
  roles: readonly Role[],
  options: ProcessOptions = {},
): Promise<RunningProcess> {
  const runtime = await createRuntime(config, { log, jobs: options.jobs ?? [] });
  await runtime.start(roles);
  let server: { url: string; close(): Promise<void> } | null = null;
  if (roles.includes('api')) {
    // Loaded here, not at the top: workers, projectors and the CLI's tools never need the HTTP stack.
    const [{ createApp }, { listen }] = await Promise.all([import('./http/app.js'), import('./server.js')]);
    server = await listen(createApp(runtime, options.app?.(runtime)), runtime);
    // Load the parsers in the workers now, not on the first upload.
    runtime.parser
      .warm()
      .catch((error: unknown) => log.warn({ err: error }, 'could not warm the parse workers'));
  }
  log.info(
    { url: server?.url, roles, dataDir: config.dataDir, embedded: runtime.embedded },
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
