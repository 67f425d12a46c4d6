import { connect } from 'node:net';
import type { Db, TopologyDescriptionChangedEvent } from 'mongodb';
import { MongoClient } from 'mongodb';
import type { Logger } from '../log.js';
import { isUnavailable, NoAnswer, translateMongoError } from './mongoErrors.js';
import { ReadStoreUnavailableError } from './readStore.js';
import { settleWithin } from '../settleWithin.js';

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
  /**
   * How long a call may take before it counts as unanswered (default 35,000 ms: the socket timeout
   * and then some); the driver keeps waiting, the caller does not.
   */
  operationTimeoutMs?: number;
}

/** A MongoDB client that connects in the background and fails fast while the server is away. */
export interface MongoConnection {
  /** The current client's database: the connection replaces a client whose pool no longer recovers. */
  db(): Db;
  /**
   * Runs an operation; errors come out as the port's errors where they have a meaning there. One
   * that has not settled after `deadlineMs` (default: the connection's operation timeout; null: no
   * limit, for index builds) fails as unavailable.
   */
  run<T>(operation: () => Promise<T>, deadlineMs?: number | null): Promise<T>;
  close(): Promise<void>;
}

const SOCKET_TIMEOUT_MS = 30_000;
const CLOSE_TIMEOUT_MS = 5_000;

/**
 * `promise`, or a NoAnswer rejection after `ms`. The driver's own timeouts do not cover every
 * wait: in the outage test, after the server's connections were cut, the `endSessions` command
 * that the driver's `close()` sends went out on a pooled connection and never settled.
 */
const withinDeadline = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  settleWithin(promise, ms, () => new NoAnswer(what, ms), { unref: true });

/**
 * Whether any of the client's hosts accepts a TCP connection within a second: a server that is
 * listening, whatever the client's pool says.
 */
function acceptsConnections(client: MongoClient): Promise<boolean> {
  const attempts = client.options.hosts.map(
    (host) =>
      new Promise<boolean>((resolve) => {
        const socket = host.socketPath
          ? connect({ path: host.socketPath })
          : connect({ host: host.host ?? 'localhost', port: host.port ?? 27017 });
        const settle = (accepted: boolean): void => {
          socket.destroy();
          resolve(accepted);
        };
        socket.setTimeout(1_000, () => settle(false));
        socket.once('connect', () => settle(true));
        socket.once('error', () => settle(false));
      }),
  );
  return Promise.all(attempts).then((accepted) => accepted.includes(true));
}

/**
 * Opens a client without waiting: the first call waits for the first connection attempt (bounded
 * by the selection timeout); after a failed one, calls fail at once while attempts go on forever.
 */
export function openMongoConnection(options: MongoConnectionOptions): MongoConnection {
  const { log } = options;
  const newClient = (): MongoClient =>
    new MongoClient(options.url, {
      serverSelectionTimeoutMS: options.serverSelectionTimeoutMs ?? 2_000,
      connectTimeoutMS: options.serverSelectionTimeoutMs ?? 2_000,
      heartbeatFrequencyMS: options.heartbeatMs ?? 1_000,
      // A server that accepts a request and never answers (FerretDB can hang) is unavailable too.
      socketTimeoutMS: SOCKET_TIMEOUT_MS,
      // JSON semantics: a field set to undefined is absent, as in the embedded store.
      ignoreUndefined: true,
      appName: 'archivist',
    });
  let client = newClient();
  // Host list without credentials, for messages.
  const where = client.options.hosts.map(String).join(',');
  let db = client.db(options.database);
  /** Pings failed in a row while the server was down: after a few, the client is replaced. */
  let failedPings = 0;
  const replaceAfterPings = Math.max(3, Math.ceil(10_000 / (options.heartbeatMs ?? 1_000)));

  /**
   * A fresh client for a server that is back while the old client's pool keeps handing out a dead
   * connection: in the fault drill one API process answered "connection 9 … closed" to every call,
   * pings included, for nine minutes after FerretDB restarted, while its neighbours had recovered.
   */
  async function replaceClient(): Promise<void> {
    const old = client;
    client = newClient();
    db = client.db(options.database);
    log.warn({ server: where }, 'MongoDB client replaced: its connections did not recover');
    await withinDeadline(old.close(), CLOSE_TIMEOUT_MS, 'closing the old client').catch(() => undefined);
    await client.connect().catch(() => undefined);
    client.on('topologyDescriptionChanged', onTopology);
  }
  let closed = false;
  let connected = false;
  let failures = 0;
  let lastError = `MongoDB at ${where} not connected yet`;
  let down: string | null = null;
  let retryTimer: NodeJS.Timeout | undefined;
  let probeTimer: NodeJS.Timeout | undefined;
  let probing = false;
  const probeTimeoutMs = Math.max(2_000, 2 * (options.serverSelectionTimeoutMs ?? 2_000));
  const operationTimeoutMs = options.operationTimeoutMs ?? SOCKET_TIMEOUT_MS + 5_000;

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

  /**
   * A ping that settles within `probeTimeoutMs` whatever the driver does. Only the probe clears the
   * down state, and a ping that never settled kept a store failing every call for over a minute
   * after its server was back (CI: the reason never changed).
   */
  async function ping(): Promise<void> {
    const signal = AbortSignal.timeout(probeTimeoutMs);
    await withinDeadline(db.command({ ping: 1 }, { signal }), probeTimeoutMs, 'a ping');
  }

  async function probe(): Promise<void> {
    probing = true;
    /** Pings failed in a row while the server accepted connections: the client, not the server. */
    let staleClientPings = 0;
    while (down && !closed) {
      try {
        await ping();
        failedPings = 0;
        markUp();
      } catch (error) {
        if (!isUnavailable(error)) markUp();
        else if (down) down = `MongoDB at ${where} unreachable: ${(error as Error).message}`;
        failedPings += 1;
        staleClientPings = down && (await acceptsConnections(client)) ? staleClientPings + 1 : 0;
        // A server that is back while this client's pings still fail: the client is stuck (in the
        // fault drill a projector's pool kept failing on one dead connection for 29 s after FerretDB
        // returned, until the count below replaced it). Two such pings in a row replace it now.
        if (down && !closed && (staleClientPings >= 2 || failedPings % replaceAfterPings === 0)) {
          staleClientPings = 0;
          await replaceClient();
        }
      }
      if (down && !closed)
        await new Promise((resolve) => {
          probeTimer = setTimeout(resolve, options.heartbeatMs ?? 1_000);
          probeTimer.unref();
        });
    }
    probing = false;
  }

  function onTopology(this: MongoClient, event: TopologyDescriptionChangedEvent): void {
    // A replaced client's late events say nothing about the current one.
    if (this !== client) return;
    const description = event.newDescription;
    if (description.hasDataBearingServers) return markUp();
    const error = [...description.servers.values()].find((server) => server.error)?.error;
    if (error) markDown(`MongoDB at ${where} unreachable: ${error.message}`);
  }
  client.on('topologyDescriptionChanged', onTopology);

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
    db: () => db,
    async run(operation, deadlineMs = operationTimeoutMs) {
      if (closed) throw new ReadStoreUnavailableError('read store is closed');
      if (!connected) {
        // Only the very first call waits (for the first attempt, bounded by the selection timeout).
        if (failures === 0) await firstAttempt;
        if (!connected) throw new ReadStoreUnavailableError(lastError);
      }
      if (down) throw new ReadStoreUnavailableError(down);
      try {
        return deadlineMs === null
          ? await operation()
          : await withinDeadline(operation(), deadlineMs, 'a call');
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
      await withinDeadline(client.close(), CLOSE_TIMEOUT_MS, 'closing the client').catch((error: unknown) =>
        log.warn({ err: error }, 'closing the MongoDB client'),
      );
    },
  };
}
