import type { Db, TopologyDescriptionChangedEvent } from 'mongodb';
import {
  BSON,
  MongoClient,
  MongoClientClosedError,
  MongoError,
  MongoInvalidArgumentError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import type { Logger } from '../log.js';
import { ReadStoreUnavailableError, UnsupportedQueryError } from './readStore.js';

export interface MongoConnectionOptions {
  url: string;
  database: string;
  log: Logger;
  /** How long a call waits for a server the client has not seen yet (default 2,000 ms). */
  serverSelectionTimeoutMs?: number;
  /** How often the driver checks the server, hence how soon a return is noticed (default 1,000 ms). */
  heartbeatMs?: number;
  /** Pause between connection attempts while the first one has not succeeded (default 1,000 ms). */
  retryMs?: number;
}

/** A MongoDB client that connects in the background and fails fast while the server is away. */
export interface MongoConnection {
  db: Db;
  /** Runs an operation; errors come out as the port's errors where they have a meaning there. */
  run<T>(operation: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

// Server replies that mean "not now" rather than "wrong": shutting down, stepping down, no primary.
const UNAVAILABLE_CODES = new Set([6, 7, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436]);
// Replies that mean the request itself cannot be served: bad value, type mismatch, too large…
const INVALID_CODES = new Set([2, 9, 14, 17, 115, 238, 10334, 51024]);

function isUnavailable(error: unknown): boolean {
  return (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoClientClosedError ||
    error instanceof MongoOperationTimeoutError ||
    (error instanceof MongoServerError &&
      typeof error.code === 'number' &&
      UNAVAILABLE_CODES.has(error.code)) ||
    (error instanceof MongoError && error.hasErrorLabel('SystemOverloadedError'))
  );
}

/** Translates a driver error at the edge; anything without a meaning for the port passes through. */
export function translateMongoError(error: unknown, where: string): unknown {
  if (error instanceof ReadStoreUnavailableError || error instanceof UnsupportedQueryError) return error;
  if (isUnavailable(error))
    return new ReadStoreUnavailableError(`MongoDB at ${where} unreachable: ${(error as Error).message}`);
  if (
    error instanceof BSON.BSONError ||
    error instanceof MongoInvalidArgumentError ||
    (error instanceof MongoServerError && typeof error.code === 'number' && INVALID_CODES.has(error.code))
  )
    return new UnsupportedQueryError(`MongoDB refused the request: ${(error as Error).message}`);
  return error;
}

/** Whether the error is the server saying it does not know an operator, index type or command. */
export function isNotSupported(error: unknown): boolean {
  return error instanceof MongoServerError && !isUnavailable(error);
}

/**
 * Opens a client without waiting: the first call waits for the first connection attempt (bounded
 * by the selection timeout); after a failed one, calls fail at once while attempts go on forever.
 */
export function openMongoConnection(options: MongoConnectionOptions): MongoConnection {
  const { log } = options;
  const client = new MongoClient(options.url, {
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMs ?? 2_000,
    connectTimeoutMS: options.serverSelectionTimeoutMs ?? 2_000,
    heartbeatFrequencyMS: options.heartbeatMs ?? 1_000,
    // A server that accepts a request and never answers (FerretDB can hang) is unavailable too.
    socketTimeoutMS: 30_000,
    // JSON semantics: a field set to undefined is absent, as in the embedded store.
    ignoreUndefined: true,
    appName: 'archivist',
  });
  // Host list without credentials, for messages.
  const where = client.options.hosts.map(String).join(',');
  const db = client.db(options.database);
  let closed = false;
  let connected = false;
  let failures = 0;
  let lastError = `MongoDB at ${where} not connected yet`;
  let down: string | null = null;
  let retryTimer: NodeJS.Timeout | undefined;
  let probeTimer: NodeJS.Timeout | undefined;
  let probing = false;

  // Once a call or the driver's monitor has seen the server go, calls fail at once (instead of each
  // waiting for server selection and retry back-offs) until a probe or the monitor sees it again.
  function markDown(reason: string): void {
    if (closed || !connected) return;
    if (!down) log.warn({ server: where, reason }, 'MongoDB unreachable');
    down = reason;
    if (!probing) void probe();
  }

  function markUp(): void {
    if (down) log.info({ server: where }, 'MongoDB reachable again');
    down = null;
  }

  async function probe(): Promise<void> {
    probing = true;
    while (down && !closed) {
      try {
        await db.command({ ping: 1 });
        markUp();
      } catch (error) {
        if (!isUnavailable(error)) markUp();
        else if (down) down = `MongoDB at ${where} unreachable: ${(error as Error).message}`;
      }
      if (down && !closed)
        await new Promise((resolve) => {
          probeTimer = setTimeout(resolve, options.heartbeatMs ?? 1_000);
          probeTimer.unref();
        });
    }
    probing = false;
  }

  client.on('topologyDescriptionChanged', (event: TopologyDescriptionChangedEvent) => {
    const description = event.newDescription;
    if (description.hasDataBearingServers) return markUp();
    const error = [...description.servers.values()].find((server) => server.error)?.error;
    if (error) markDown(`MongoDB at ${where} unreachable: ${error.message}`);
  });

  async function attempt(): Promise<void> {
    try {
      await client.connect();
      if (failures > 0) log.info({ server: where }, 'connected to MongoDB');
      connected = true;
      failures = 0;
    } catch (error) {
      const reason = `MongoDB at ${where} unreachable: ${(error as Error).message}`;
      if (reason !== lastError || failures === 0)
        log.warn({ server: where, reason }, 'cannot connect to MongoDB');
      lastError = reason;
      failures += 1;
      // A failed connect closes the driver's topology for good; the next connect() builds a new one.
      if (!closed) {
        retryTimer = setTimeout(() => void attempt(), options.retryMs ?? 1_000);
        retryTimer.unref();
      }
    }
  }
  const firstAttempt = attempt();

  return {
    db,
    async run(operation) {
      if (closed) throw new ReadStoreUnavailableError('read store is closed');
      if (!connected) {
        // Only the very first call waits (for the first attempt, bounded by the selection timeout).
        if (failures === 0) await firstAttempt;
        if (!connected) throw new ReadStoreUnavailableError(lastError);
      }
      if (down) throw new ReadStoreUnavailableError(down);
      try {
        return await operation();
      } catch (error) {
        const translated = translateMongoError(error, where);
        if (translated instanceof ReadStoreUnavailableError) markDown(translated.message);
        throw translated;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(retryTimer);
      clearTimeout(probeTimer);
      await client.close().catch((error: unknown) => log.warn({ err: error }, 'closing the MongoDB client'));
    },
  };
}
