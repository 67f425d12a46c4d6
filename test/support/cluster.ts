/**
 * Cluster mode of the HTTP suites: with `ARCHIVIST_TEST_CLUSTER` naming the `cluster.env` that
 * `bash scripts/cluster.sh up DIR` writes, `startTestApp` serves on that cluster's engines as one more
 * API process of it, and the cluster's own workers and projector do the rest. Its stores are shared
 * by every suite and outlive the run, so a suite must not count on an empty world there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

export const CLUSTER_VARIABLE = 'ARCHIVIST_TEST_CLUSTER';

/** What a cluster.env sets that chooses and addresses the engines: taken from it, never from a suite. */
export const ENGINE_VARIABLES = [
  'EVENT_STORE',
  'BUS',
  'BLOB_STORE',
  'READ_STORE',
  'VECTOR_STORE',
  'POSTGRES_URL',
  'EVENTSTORE_URL',
  'NATS_URL',
  'MONGODB_URL',
  'MONGODB_DATABASE',
  'MILVUS_URL',
  'MILVUS_TOKEN',
] as const;

/**
 * The variables of a shell file of `export NAME=value` lines (as cluster.sh writes them): values
 * bare, 'single-quoted' or "double-quoted"; comments and blank lines ignored.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) throw new Error(`not a variable assignment: ${JSON.stringify(line)}`);
    const [, name, value] = match as unknown as [string, string, string];
    const quoted = /^'(.*)'$/.exec(value) ?? /^"(.*)"$/.exec(value);
    variables[name] = quoted ? quoted[1]! : value;
  }
  return variables;
}

/** The cluster.env `ARCHIVIST_TEST_CLUSTER` names, read once; null in embedded mode. */
function loadCluster(): Record<string, string> | null {
  const path = process.env[CLUSTER_VARIABLE]?.trim();
  if (!path) {
    // `npm run test:cluster` is the plain mocha run of the HTTP suites: without a cluster it would
    // pass in embedded mode and claim what it did not test.
    if (process.env['npm_lifecycle_event'] === 'test:cluster') {
      throw new Error(
        `${CLUSTER_VARIABLE} is not set: start a cluster (bash scripts/cluster.sh up DIR) and run ${CLUSTER_VARIABLE}=DIR/cluster.env npm run test:cluster`,
      );
    }
    return null;
  }
  if (!existsSync(path)) {
    throw new Error(
      `${CLUSTER_VARIABLE}=${path}: no such file. Is the cluster up? (bash scripts/cluster.sh up DIR writes DIR/cluster.env, and down removes it)`,
    );
  }
  const variables = parseEnvFile(readFileSync(path, 'utf8'));
  const missing = ['EVENT_STORE', 'BUS', 'READ_STORE'].filter((name) => !variables[name]);
  if (missing.length > 0) throw new Error(`${path} sets no ${missing.join(', ')}: not a cluster.env`);
  if (['memory', 'file'].includes(variables['EVENT_STORE']!)) {
    throw new Error(`${path} sets EVENT_STORE=${variables['EVENT_STORE']}: not a cluster's event store`);
  }
  return variables;
}

// Checked on import, so that a run pointed at a missing cluster fails before any test, not in each.
const cluster = loadCluster();

/** True when the suites run against a cluster (ARCHIVIST_TEST_CLUSTER). */
export function clusterMode(): boolean {
  return cluster !== null;
}

/** The cluster's engine settings (EVENT_STORE … MILVUS_URL, MONGODB_DATABASE); throws in embedded mode. */
export function clusterEngines(): Record<string, string> {
  if (!cluster) throw new Error(`not in cluster mode (${CLUSTER_VARIABLE} is not set)`);
  return Object.fromEntries(
    ENGINE_VARIABLES.flatMap((name) => (cluster[name] === undefined ? [] : [[name, cluster[name]]])),
  );
}

/**
 * `env` for a process of the cluster: the suite's own settings (API keys, limits, timeouts…) without
 * any engine choice or address, then the cluster's engines.
 */
export function clusterConfigEnv(env: Record<string, string>): Record<string, string> {
  const own = Object.fromEntries(
    Object.entries(env).filter(([name]) => !(ENGINE_VARIABLES as readonly string[]).includes(name)),
  );
  return { ...own, ...clusterEngines() };
}

/** In cluster mode, skips the test (or, from a hook, the suite), printing why as skips elsewhere do. */
export function skipInCluster(context: Mocha.Context, reason: string): void {
  if (!clusterMode()) return;
  console.log(`      skipped: ${reason}`);
  context.skip();
}

const run = randomBytes(4).toString('hex');
let made = 0;

/**
 * A name no other test of any run has used: `base` as is in embedded mode (fresh stores per app),
 * with a suffix of this run in cluster mode, where users, sources and URLs outlive the test.
 */
export function uniqueName(base: string): string {
  if (!clusterMode()) return base;
  made += 1;
  return `${base}-${run}${made}`;
}

/** `name` with a suffix of the run before its extension in cluster mode (`readme.md` → `readme-<run>.md`). */
export function uniqueFileName(name: string): string {
  if (!clusterMode()) return name;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${uniqueName(name.slice(0, dot))}${name.slice(dot)}` : uniqueName(name);
}

const MARKED = new Set(['.md', '.txt', '.rst']);

/**
 * A fixture as a test uploads it. In cluster mode a copy stored by another suite or an earlier run
 * would make the upload a duplicate, so it gets a name of its own and, for plain-text formats, a last
 * line of its own (so its content hash is new too); other formats rely on `documentSweeper`.
 */
export function uniqueUpload(name: string, bytes: Buffer): { name: string; bytes: Buffer } {
  if (!clusterMode()) return { name, bytes };
  const unique = uniqueFileName(name);
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot).toLowerCase() : '';
  if (!MARKED.has(extension)) return { name: unique, bytes };
  return { name: unique, bytes: Buffer.concat([bytes, Buffer.from(`\n\nUploaded as ${unique}.\n`)]) };
}

/**
 * The documents a test stores. In cluster mode the knowledge base outlives the test and every suite
 * searches it, so `sweep` deletes them afterwards; embedded, the app's stores go with the app.
 */
export function documentSweeper() {
  const ids = new Set<string>();
  /** Records the documents upload or scrape results stored (one, a list, or a bulk result); returns them. */
  const keep = <T>(result: T): T => {
    if (Array.isArray(result)) {
      for (const each of result) keep(each);
      return result;
    }
    const docId = (result as { doc_id?: unknown } | null)?.doc_id;
    if (typeof docId === 'string') ids.add(docId);
    for (const each of (result as { results?: unknown[] } | null)?.results ?? []) keep(each);
    return result;
  };
  return {
    keep,
    /** Deletes what was kept (cluster mode), through `remove` (a DELETE /api/v1/documents/{id}). */
    async sweep(remove: (docId: string) => PromiseLike<unknown>): Promise<void> {
      const kept = [...ids];
      ids.clear();
      if (clusterMode()) for (const docId of kept) await remove(docId);
    },
  };
}
