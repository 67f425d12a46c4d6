import { hostname } from 'node:os';
import { ConfigError, isEmbedded, type Config } from '../config.js';
import { DataDirLockedError, lockDataDir } from '../dataDirLock.js';
import { createReadStoreEmbeddingCache } from '../knowledge/embeddingCache.js';
import { rebuildVectors } from '../knowledge/vectorRebuild.js';
import { VECTORS_PROJECTION } from '../knowledge/vectorProjector.js';
import { openVectorStore } from '../knowledge/vectorStore.js';
import { createModels } from '../models/fromConfig.js';
import { createLogger } from '../log.js';
import { rolesFor, runProcess } from '../process.js';
import { checkAll } from '../health.js';
import { eventFeed } from '../eventStore/eventFeed.js';
import { ALL_ROLES, type Role } from '../roles.js';
import { createRuntime, openTools, type Tools } from '../runtime.js';
import { UsageError } from './usageError.js';

/**
 * The operator's commands: running the product's processes, and the tools that work on its stores
 * (events, rebuild, stats, check). Loaded only when one of them runs: `archivist --version` and the
 * people's commands start without the runtime.
 */

export async function run(
  config: Config,
  command: 'serve' | 'worker' | 'project',
  rolesOption: string | undefined,
): Promise<number> {
  const log = createLogger({ level: config.logLevel });
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

export async function printEvents(
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

export async function rebuild(config: Config, name: string | undefined): Promise<number> {
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

export async function stats(config: Config): Promise<number> {
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
export async function check(config: Config): Promise<number> {
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
