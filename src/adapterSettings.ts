import { resolve } from 'node:path';
import {
  ConfigError,
  defineSettings,
  integer,
  list,
  oneOf,
  optionalText,
  text,
  url,
  type Env,
} from './configuration/variable.js';
import { OPTIONAL_COMPONENTS } from './health.js';
import { parseMilvusUrl } from './vector/milvusUrl.js';

const DATA_DIR = text('DATA_DIR', {
  default: './data',
  meaning: 'Folder for everything embedded: event log, read models, queues, uploads.',
});
const LOG_LEVEL = oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
  default: 'info',
  meaning: 'pino level: fatal, error, warn, info, debug, trace or silent.',
});
const EVENT_STORE = oneOf('EVENT_STORE', ['file', 'memory', 'esdb', 'postgres'], {
  default: 'file',
  meaning:
    '`file` (SQLite under DATA_DIR), `memory` (tests), `postgres` (PostgreSQL: one log several hosts share) or `esdb` (EventStoreDB).',
});
const POSTGRES_URL = url(
  'POSTGRES_URL',
  'PostgreSQL connection string of the event log, e.g. `postgres://archivist@127.0.0.1:5432/archivist`.',
);
const EVENTSTORE_URL = url(
  'EVENTSTORE_URL',
  'EventStoreDB connection string, e.g. `esdb://localhost:2113?tls=false`.',
);
const EVENT_STORE_POLL_MS = integer('EVENT_STORE_POLL_MS', {
  default: '(off)',
  min: 1,
  max: 60_000,
  meaning: 'Poll the event store file this often: set when several processes share it.',
});
const BUS = oneOf('BUS', ['memory', 'nats'], {
  default: 'memory',
  meaning: '`memory` (in-process; queues kept in SQLite under DATA_DIR) or `nats` (JetStream).',
});
const NATS_URL = url('NATS_URL', 'NATS server, e.g. `nats://127.0.0.1:4222`.');
const BLOB_STORE = oneOf('BLOB_STORE', ['file', 'nats'], {
  default: '(file; nats with BUS=nats)',
  meaning:
    'Where uploaded bytes wait for the worker that ingests them: `file` (under DATA_DIR, so API and workers must share it) or `nats` (the JetStream object store of NATS_URL: nothing shared on disk).',
});
const READ_STORE = oneOf('READ_STORE', ['embedded', 'mongodb'], {
  default: 'embedded',
  meaning: '`embedded` (SQLite under DATA_DIR) or `mongodb`.',
});
const MONGODB_URL = url('MONGODB_URL', 'MongoDB connection string (MongoDB, or FerretDB).');
const MONGODB_DATABASE = text('MONGODB_DATABASE', {
  default: 'archivist',
  meaning: 'Database name for the read models.',
});
const VECTOR_STORE = oneOf('VECTOR_STORE', ['embedded', 'milvus'], {
  default: 'embedded',
  meaning:
    '`embedded` (in the memory of each API process, persisted under DATA_DIR) or `milvus` (one shared index, kept by the projector role).',
});
// Milvus addresses are often written without a scheme (`host:19530`): the adapter's parser checks them.
const MILVUS_URL = optionalText(
  'MILVUS_URL',
  'Milvus server, e.g. `http://127.0.0.1:19530` (`https://` for TLS; Milvus Lite works too).',
);
const MILVUS_TOKEN = optionalText(
  'MILVUS_TOKEN',
  'API key or `user:password` for MILVUS_URL, if it needs one.',
  '(empty)',
);
const ENGINE_TIMEOUT_MS = integer('ENGINE_TIMEOUT_MS', {
  default: '5000',
  min: 100,
  max: 600_000,
  meaning:
    'Longest a request waits for an engine (event store, read store, bus, vector store) that does not answer; it then gets 503 with `Retry-After`, never a hang.',
});
const SCRUB_DELAY_MS = integer('SCRUB_DELAY_MS', {
  default: '2000',
  min: 0,
  max: 3_600_000,
  meaning:
    'Deletions (purges) within this window share one scrub that removes their content from the files under DATA_DIR.',
});
const READY_REQUIRES = list('READY_REQUIRES', {
  default: '(empty)',
  allowed: OPTIONAL_COMPONENTS,
  meaning:
    'Comma-separated optional components `/health/ready` requires besides the stores, bus and projections: embedder, llm, vector_store, reranker, workers (a live worker for every job queue).',
});

/**
 * Where the data lives and which engine serves each port: embedded by default, a real server each
 * when configured (with its address required, and refused when given for a port that does not use it).
 */
export const adapterSettings = defineSettings(
  [
    DATA_DIR,
    LOG_LEVEL,
    EVENT_STORE,
    POSTGRES_URL,
    EVENTSTORE_URL,
    EVENT_STORE_POLL_MS,
    BUS,
    NATS_URL,
    BLOB_STORE,
    READ_STORE,
    MONGODB_URL,
    MONGODB_DATABASE,
    VECTOR_STORE,
    MILVUS_URL,
    MILVUS_TOKEN,
    ENGINE_TIMEOUT_MS,
    SCRUB_DELAY_MS,
    READY_REQUIRES,
  ],
  (env) => {
    const eventStore = EVENT_STORE.read(env);
    const bus = BUS.read(env);
    const readStore = READ_STORE.read(env);
    const vectorStore = VECTOR_STORE.read(env);
    /** Where uploaded bytes wait for their ingestion job: files under DATA_DIR, or NATS's object store. */
    const blobStore = BLOB_STORE.read(env, bus === 'nats' ? 'nats' : 'file');
    refuseUnusedEngines(env, { eventStore, bus, readStore, vectorStore, blobStore });
    return {
      dataDir: resolve(DATA_DIR.read(env)),
      logLevel: LOG_LEVEL.read(env),
      eventStore,
      eventStoreUrl: required(env, EVENTSTORE_URL, eventStore === 'esdb', 'EVENT_STORE=esdb'),
      /** PostgreSQL connection string of the event log (EVENT_STORE=postgres). */
      postgresUrl: required(env, POSTGRES_URL, eventStore === 'postgres', 'EVENT_STORE=postgres'),
      /** Set when another process also writes the event store file: how often subscribers poll it. */
      eventStorePollMs: EVENT_STORE_POLL_MS.isSet(env) ? EVENT_STORE_POLL_MS.read(env) : null,
      blobStore,
      bus,
      natsUrl: required(
        env,
        NATS_URL,
        bus === 'nats' || blobStore === 'nats',
        bus === 'nats' ? 'BUS=nats' : 'BLOB_STORE=nats',
      ),
      readStore,
      mongodbUrl: required(env, MONGODB_URL, readStore === 'mongodb', 'READ_STORE=mongodb'),
      mongodbDatabase: MONGODB_DATABASE.read(env),
      vectorStore,
      milvusUrl: milvusUrl(env, vectorStore === 'milvus'),
      milvusToken: MILVUS_TOKEN.read(env),
      /** Longest a synchronous request waits for an engine that does not answer before it gets 503. */
      engineTimeoutMs: ENGINE_TIMEOUT_MS.read(env),
      /** Deletions within this window share one scrub of the stores' files. */
      scrubDelayMs: SCRUB_DELAY_MS.read(env),
      /** Optional components that readiness requires too. */
      readyRequires: READY_REQUIRES.read(env),
    };
  },
);

function required(
  env: Env,
  variable: { name: string; read(env: Env): string | null },
  needed: boolean,
  because: string,
): string | null {
  const value = variable.read(env);
  if (needed && !value) throw new ConfigError(`${variable.name} is required when ${because}`);
  return value;
}

function milvusUrl(env: Env, needed: boolean): string | null {
  const value = required(env, MILVUS_URL, needed, 'VECTOR_STORE=milvus');
  if (value) {
    try {
      parseMilvusUrl(value);
    } catch (error) {
      throw new ConfigError(`MILVUS_URL: ${(error as Error).message}`);
    }
  }
  return value;
}

interface ChosenAdapters {
  eventStore: string;
  bus: string;
  readStore: string;
  vectorStore: string;
  blobStore: string;
}

/**
 * An engine's address given for a port configured to another adapter is refused, not ignored: a
 * user who sets MILVUS_URL and forgets VECTOR_STORE=milvus would otherwise run on an embedded index
 * without knowing it.
 */
function refuseUnusedEngines(env: Env, chosen: ChosenAdapters): void {
  const engines = [
    [NATS_URL, BUS, 'nats', chosen.bus === 'nats' || chosen.blobStore === 'nats'],
    [EVENTSTORE_URL, EVENT_STORE, 'esdb', chosen.eventStore === 'esdb'],
    [POSTGRES_URL, EVENT_STORE, 'postgres', chosen.eventStore === 'postgres'],
    [MONGODB_URL, READ_STORE, 'mongodb', chosen.readStore === 'mongodb'],
    [MILVUS_URL, VECTOR_STORE, 'milvus', chosen.vectorStore === 'milvus'],
  ] as const;
  for (const [address, port, adapter, used] of engines) {
    if (address.isSet(env) && !used) {
      throw new ConfigError(
        `${address.name} is set but ${port.name} is ${JSON.stringify(port.read(env))}: set ${port.name}=${adapter} to use it, or unset ${address.name}`,
      );
    }
  }
}

/** Every port on its embedded adapter: one process owns the data folder and runs every role. */
export function isEmbedded(config: { eventStore: string; bus: string; readStore: string }): boolean {
  return (
    (config.eventStore === 'file' || config.eventStore === 'memory') &&
    config.bus === 'memory' &&
    config.readStore === 'embedded'
  );
}
