#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=262144 node --v8-pool-size=0
import { parseArgs } from 'node:util';
import { VERSION } from '../version.js';
import { ConfigError, isEmbedded, loadConfig, type Config } from '../config.js';
import { hostname } from 'node:os';
import { DataDirLockedError, lockDataDir } from '../dataDirLock.js';
import { createReadStoreEmbeddingCache } from '../knowledge/embeddingCache.js';
import { rebuildVectors } from '../knowledge/vectorRebuild.js';
import { VECTORS_PROJECTION } from '../knowledge/vectorProjector.js';
import { openVectorStore } from '../knowledge/vectorStore.js';
import { createModels } from '../models/fromConfig.js';
import { createLogger, type Logger } from '../log.js';
import { rolesFor, runProcess } from '../process.js';
import { checkAll } from '../health.js';
import { eventFeed } from '../eventStore/eventFeed.js';
import { ALL_ROLES, type Role } from '../roles.js';
import { createRuntime, openTools, type Tools } from '../runtime.js';
import { PortInUseError } from '../server.js';
import { USERS_USAGE, usersCommand, UsersUsageError } from './users.js';
import { SETTINGS_USAGE, settingsCommand } from './settings.js';
import { COLLECTIONS_USAGE, collectionsCommand, CollectionsUsageError } from './collections.js';

const USAGE = `archivist — an AI assistant and knowledge base you can trust

Usage: archivist [command] [options]
       archivist --version | --help

Commands:
  serve                 Run Archivist (default): the HTTP APIs. With everything embedded (the default
                        configuration) it also runs the workers and projections, in one process.
  worker                Run background jobs from the shared bus (BUS=nats). Any number of them.
  project               Maintain the read models in the shared read store. Any number (one applies each
                        projection at a time; the others stand by).
      --roles <list>    Run these roles instead: api, worker, projector (comma-separated).
  events [stream]       Print events as JSON lines: one stream, or all events (the audit tool).
      --from <n>        Start after global position n (all events) or at version n (one stream).
      --limit <n>       Print at most n events.
      --follow          Keep printing new events as they are appended.
  rebuild [projection]  Rebuild a projection (all when none is named) beside the active one and switch to it.
                        'vectors' names the vector index: rebuilt into a new collection from the
                        embedding cache, made active, the old one dropped.
  stats                 Print event log, projection and task statistics as JSON.
  check                 Check that the configured event store, read store and bus answer (exit 0 or 1):
                        a container health check for worker and projector processes.
${USERS_USAGE}
${COLLECTIONS_USAGE}
${SETTINGS_USAGE}

Configuration comes from environment variables; see README.md.`;

class UsageError extends Error {}

function parseCommandLine() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        from: { type: 'string' },
        limit: { type: 'string' },
        follow: { type: 'boolean', default: false },
        roles: { type: 'string' },
        admin: { type: 'boolean', default: false },
        'password-stdin': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'v', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function main(): Promise<number> {
  const { positionals, values } = parseCommandLine();
  const [command = 'serve', ...rest] = positionals;
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.version || command === 'version') {
    process.stdout.write(`archivist ${VERSION}\n`);
    return 0;
  }
  const config = loadConfig();
  const log = createLogger({ level: config.logLevel });

  switch (command) {
    case 'serve':
    case 'worker':
    case 'project':
      return run(config, log, command, values.roles);
    case 'events':
      return printEvents(config, rest[0], values);
    case 'rebuild':
      return rebuild(config, rest[0]);
    case 'stats':
      return stats(config);
    case 'check':
      return check(config);
    case 'users':
      return usersCommand(config, rest, values);
    case 'settings':
      return settingsCommand(config, rest);
    case 'collections':
      return collectionsCommand(config, rest);
    default:
      process.stderr.write(`unknown command: ${command}\n\n${USAGE}\n`);
      return 2;
  }
}

async function run(
  config: Config,
  log: Logger,
  command: 'serve' | 'worker' | 'project',
  rolesOption: string | undefined,
): Promise<number> {
  const roles = rolesOption ? parseRoles(rolesOption) : rolesFor(command, isEmbedded(config));
  const running = await runProcess(config, log, roles);
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      log.info({ signal }, 'shutting down');
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await running.stop();
  return 0;
}

function parseRoles(value: string): Role[] {
  const roles = value.split(',').map((role) => role.trim());
  const unknown = roles.filter((role) => !(ALL_ROLES as readonly string[]).includes(role));
  if (unknown.length > 0 || roles.length === 0) {
    throw new UsageError(`--roles takes a comma-separated list of ${ALL_ROLES.join(', ')}; got ${value}`);
  }
  return roles as Role[];
}

/** The tools work beside a running server: they take no lock and touch no queue. */
async function withTools<T>(config: Config, use: (tools: Tools) => Promise<T>): Promise<T> {
  const tools = await openTools(config, createLogger({ level: 'warn' }));
  try {
    await tools.registry.init();
    return await use(tools);
  } finally {
    await tools.close();
  }
}

function positiveInteger(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new ConfigError(`--${name} must be a non-negative integer`);
  return number;
}

async function printEvents(
  config: Config,
  stream: string | undefined,
  options: { from?: string | undefined; limit?: string | undefined; follow?: boolean | undefined },
): Promise<number> {
  const from = positiveInteger(options.from, 'from');
  const limit = positiveInteger(options.limit, 'limit') ?? Number.POSITIVE_INFINITY;
  return withTools(config, async ({ eventStore }) => {
    const controller = new AbortController();
    process.once('SIGINT', () => controller.abort());
    // For one stream --from names the first version to print; for the log, the position after which to start.
    const feed = eventFeed(eventStore, {
      ...(stream === undefined ? { from: from ?? 0 } : { stream, from: (from ?? 1) - 1 }),
      follow: options.follow ?? false,
      signal: controller.signal,
    });
    let printed = 0;
    if (limit > 0) {
      for await (const { event } of feed) {
        process.stdout.write(`${JSON.stringify(event)}\n`);
        printed += 1;
        if (printed >= limit) break;
      }
    }
    controller.abort();
    return 0;
  });
}

async function rebuild(config: Config, name: string | undefined): Promise<number> {
  return withTools(config, async (runtime) => {
    const known = runtime.registry.projections.map((projection) => projection.name);
    if (name && !known.includes(name) && name !== VECTORS_PROJECTION) {
      throw new ConfigError(
        `no projection named ${name}; known: ${[...known, VECTORS_PROJECTION].join(', ')}`,
      );
    }
    const names = name ? known.filter((known) => known === name) : known;
    for (const projectionName of names) {
      const started = Date.now();
      let last = 0;
      await runtime.projections.rebuild(projectionName, {
        onProgress(position, head) {
          if (Date.now() - last > 1_000) {
            last = Date.now();
            process.stderr.write(`${projectionName}: ${position}/${head}\n`);
          }
        },
      });
      process.stdout.write(
        `${JSON.stringify({ projection: projectionName, rebuilt: true, ms: Date.now() - started })}\n`,
      );
    }
    if (!name || name === VECTORS_PROJECTION) await rebuildVectorIndex(config, runtime);
    return 0;
  });
}

/** The vector index into a new collection beside the active one, from the embedding cache. */
async function rebuildVectorIndex(config: Config, tools: Tools): Promise<void> {
  const started = Date.now();
  const log = createLogger({ level: 'warn' });
  const { embedder } = createModels(config, log);
  let last = 0;
  const result = await rebuildVectors({
    store: openVectorStore({
      dataDir: config.dataDir,
      exactSearchBelow: config.vectorExactBelow,
      milvus: config.vectorStore === 'milvus' ? { url: config.milvusUrl!, token: config.milvusToken } : null,
      readStore: tools.readStore,
      log,
      primaryFolder: true,
    }),
    embedder,
    embeddings: createReadStoreEmbeddingCache(tools.readStore),
    eventStore: tools.eventStore,
    readStore: tools.readStore,
    owner: `cli:${hostname()}:${process.pid}`,
    log,
    // Embedded, a running server holds the folder's lock and drops the old collection itself.
    exclusive() {
      if (config.vectorStore === 'milvus') return null;
      try {
        return lockDataDir(config.dataDir);
      } catch (error) {
        if (error instanceof DataDirLockedError) return null;
        throw error;
      }
    },
    onProgress(position, head) {
      if (Date.now() - last > 1_000) {
        last = Date.now();
        process.stderr.write(`${VECTORS_PROJECTION}: ${position}/${head}\n`);
      }
    },
  });
  process.stdout.write(
    `${JSON.stringify({
      projection: VECTORS_PROJECTION,
      rebuilt: true,
      collection: result.collection,
      previous: result.previous,
      vectors: result.vectors,
      previous_dropped: result.dropped,
      ms: Date.now() - started,
    })}\n`,
  );
}

async function stats(config: Config): Promise<number> {
  return withTools(config, async (runtime) => {
    const projections = await Promise.all(
      runtime.registry.projections.map(async (projection) => {
        const active = await runtime.registry.active(projection.name);
        const instance = active ? await runtime.registry.instance(active) : null;
        return {
          name: projection.name,
          version: active?.version ?? null,
          generation: active?.generation ?? null,
          position: instance?.position ?? null,
        };
      }),
    );
    const tasks = await runtime.readModels.countBy('tasks', 'status');
    const output = {
      head_position: await runtime.eventStore.headPosition(),
      projections,
      tasks_by_status: Object.fromEntries(tasks.map((group) => [String(group.value), group.count])),
    };
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    return 0;
  });
}

/** Readiness of the stores without serving anything (no lock: safe beside a running server). */
async function check(config: Config): Promise<number> {
  const log = createLogger({ level: 'silent' });
  const components = isEmbedded(config)
    ? await withTools(config, async ({ eventStore, readStore }) =>
        checkAll([
          {
            name: 'event_store',
            required: true,
            check: async () => ({
              healthy: true,
              reason: `head position ${await eventStore.headPosition()}`,
            }),
          },
          { name: 'read_store', required: true, check: () => readStore.health() },
        ]),
      )
    : await (async () => {
        const runtime = await createRuntime(config, { log });
        try {
          return (await runtime.health()).filter((c) =>
            ['event_store', 'read_store', 'bus'].includes(c.name),
          );
        } finally {
          await runtime.stop();
        }
      })();
  process.stdout.write(`${JSON.stringify(components)}\n`);
  return components.every((component) => component.healthy) ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (
      error instanceof UsageError ||
      error instanceof UsersUsageError ||
      error instanceof CollectionsUsageError
    ) {
      process.stderr.write(`archivist: ${error.message}\n\n${USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    if (
      error instanceof ConfigError ||
      error instanceof DataDirLockedError ||
      error instanceof PortInUseError
    ) {
      process.stderr.write(`archivist: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(
      `archivist: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
