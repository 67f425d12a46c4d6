import type { Config } from './config.js';

/**
 * Which adapter serves each port, and whether that adapter has met a real server of its engine in
 * CI (`.ci/run` starts every server it can install on its machines). Said plainly in
 * `/health/stats` and the README, so nobody runs an adapter in production believing it was tested
 * against an engine it never met.
 */
export interface AdapterProvenance {
  port: 'event_store' | 'bus' | 'read_store' | 'vector_store' | 'blob_store';
  adapter: string;
  /** What the adapter was tested against in CI. */
  tested_against: string;
  /** False when no real server of its engine has ever run in CI. */
  real_server_in_ci: boolean;
}

const EMBEDDED = 'embedded (runs in-process; every CI run)';

export function adapterProvenance(
  config: Pick<Config, 'eventStore' | 'bus' | 'readStore' | 'vectorStore' | 'blobStore'>,
): AdapterProvenance[] {
  const eventStore: Record<Config['eventStore'], [string, boolean]> = {
    file: [EMBEDDED, true],
    memory: [EMBEDDED, true],
    postgres: ['PostgreSQL 15 (Debian postgresql-15), started by .ci/run', true],
    esdb: [
      'a stand-in written in this project only: no EventStoreDB or KurrentDB server can be installed on the CI machines',
      false,
    ],
  };
  const [esTested, esReal] = eventStore[config.eventStore];
  return [
    { port: 'event_store', adapter: config.eventStore, tested_against: esTested, real_server_in_ci: esReal },
    {
      port: 'bus',
      adapter: config.bus,
      tested_against: config.bus === 'nats' ? 'nats-server 2.9 (Debian), started by .ci/run' : EMBEDDED,
      real_server_in_ci: true,
    },
    {
      port: 'read_store',
      adapter: config.readStore,
      tested_against:
        config.readStore === 'mongodb'
          ? 'FerretDB 1.24 (MongoDB wire protocol, SQLite backend), started by .ci/run; not a real MongoDB server'
          : EMBEDDED,
      real_server_in_ci: true,
    },
    {
      port: 'vector_store',
      adapter: config.vectorStore,
      tested_against:
        config.vectorStore === 'milvus'
          ? 'Milvus Lite 2.5 (the Milvus server binary of the PyPI wheel), started by .ci/run; not a Milvus cluster'
          : EMBEDDED,
      real_server_in_ci: true,
    },
    {
      port: 'blob_store',
      adapter: config.blobStore,
      tested_against:
        config.blobStore === 'nats' ? 'nats-server 2.9 JetStream object store, started by .ci/run' : EMBEDDED,
      real_server_in_ci: true,
    },
  ];
}
