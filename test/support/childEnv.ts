/**
 * The environment of a child process a test starts: this process's, without the engine addresses CI
 * exports for the contract suites (NATS_URL, MONGODB_URL, MILVUS_URL, POSTGRES_URL, EVENTSTORE_URL).
 * Configuration refuses an engine's address for a port set to another adapter, so a child gets only
 * the engines its test names in `overrides`.
 */
export const ENGINE_URLS = [
  'NATS_URL',
  'MONGODB_URL',
  'MILVUS_URL',
  'POSTGRES_URL',
  'EVENTSTORE_URL',
] as const;

export function childEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ENGINE_URLS) delete env[name];
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}
