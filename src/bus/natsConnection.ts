/**
 * The NATS bus's connection to the server: connects in the background and retries forever, follows
 * the client's reconnects, and runs the bus's JetStream setup (streams) after every (re)connect. A
 * session is "ready" once that setup succeeded; callers either get the ready session, wait a short
 * bounded time for one, or get `BusUnavailableError` with the reason the bus is down.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection, type Status } from '@nats-io/transport-node';
import type { Logger } from '../log.js';
import { BusUnavailableError } from './bus.js';
import { describeError, withTimeout } from './natsErrors.js';

export interface NatsSession {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /**
   * Calls `listener` once this session stops being the ready one (at once if it already has);
   * returns the function that unregisters it.
   */
  onLost(listener: (error: BusUnavailableError) => void): () => void;
}

export interface NatsLinkOptions {
  url: string;
  name: string;
  log: Logger;
  /** Bound on every JetStream API request and publish acknowledgement. */
  apiTimeoutMs: number;
  /** Runs after every connect and reconnect; the session is ready once it resolves. */
  setup(session: NatsSession): Promise<void>;
}

export interface NatsLink {
  url: string;
  /** The ready session, or null while connecting, reconnecting or setting up. */
  current(): NatsSession | null;
  /** The ready session; waits at most `waitMs` (forever when omitted) before `BusUnavailableError`. */
  ready(waitMs?: number): Promise<NatsSession>;
  /** Why there is no ready session (connection state, server URL and last error). */
  reason(): string;
  /** Called with every session that becomes ready (first connect, each reconnect). */
  onReady(listener: (session: NatsSession) => void): () => void;
  close(): Promise<void>;
}

/**
 * Listeners kept in a set and removed when done: a promise raced against a session's loss for
 * every publish would pile up reactions on it for as long as the session lives.
 */
function lossSignal(): {
  onLost(listener: (error: BusUnavailableError) => void): () => void;
  lose(error: BusUnavailableError): void;
} {
  const listeners = new Set<(error: BusUnavailableError) => void>();
  let lostWith: BusUnavailableError | null = null;
  return {
    onLost(listener) {
      if (lostWith) {
        const error = lostWith;
        queueMicrotask(() => listener(error));
        return () => {};
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    lose(error) {
      if (lostWith) return;
      lostWith = error;
      for (const listener of [...listeners]) listener(error);
      listeners.clear();
    },
  };
}

/** Settles like `promise`, or rejects with `BusUnavailableError` as soon as `session` is lost. */
export function unlessLost<T>(session: NatsSession, promise: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const off = session.onLost(reject);
    promise.then(
      (value) => {
        off();
        resolve(value);
      },
      (error: unknown) => {
        off();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

export function createNatsLink(options: NatsLinkOptions): NatsLink {
  const { url, log } = options;
  let closed = false;
  let connection: NatsConnection | null = null;
  let connected = false;
  let lastError: string | null = null;
  /** When the server was last seen going away (or when connecting began); null while connected. */
  let downSince: number | null = Date.now();
  let session: NatsSession | null = null;
  let loseSession: ((error: BusUnavailableError) => void) | null = null;
  // Bumped on every connect, disconnect and reconnect, so a setup started for an older connection
  // state never publishes its session.
  let generation = 0;
  let wakeRetry: (() => void) | null = null;
  const listeners = new Set<(session: NatsSession) => void>();
  const waiters = new Set<{ resolve(session: NatsSession): void; reject(error: Error): void }>();

  function reason(): string {
    if (closed) return 'bus is closed';
    const last = lastError ? ` (last error: ${lastError})` : '';
    const since = downSince === null ? '' : ` for ${Math.round((Date.now() - downSince) / 1000)} s`;
    if (!connection) return `cannot reach NATS at ${url}${since}, retrying${last}`;
    if (!connected) return `lost the connection to NATS at ${url}${since}, reconnecting${last}`;
    return `connected to NATS at ${url} but JetStream is not ready${last}`;
  }

  function dropSession(why: string): void {
    if (!session) return;
    session = null;
    loseSession?.(new BusUnavailableError(why));
    loseSession = null;
  }

  /** Sleeps `ms`, or less when the link is closed meanwhile. */
  function pause(ms: number): Promise<void> {
    if (closed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        wakeRetry = null;
        resolve();
      }
      wakeRetry = done;
    });
  }

  async function setUp(nc: NatsConnection, forGeneration: number): Promise<void> {
    const current = (): boolean => !closed && connection === nc && connected && generation === forGeneration;
    while (current()) {
      try {
        const jsm = await jetstreamManager(nc, { timeout: options.apiTimeoutMs });
        const js = jetstream(nc, { timeout: options.apiTimeoutMs });
        const { onLost, lose } = lossSignal();
        const candidate: NatsSession = { nc, js, jsm, onLost };
        await options.setup(candidate);
        if (!current()) return;
        session = candidate;
        loseSession = lose;
        lastError = null;
        log.info({ url }, 'bus: connected to NATS JetStream');
        for (const waiter of [...waiters]) waiter.resolve(candidate);
        waiters.clear();
        for (const listener of [...listeners]) listener(candidate);
        return;
      } catch (error) {
        if (!current()) return;
        lastError = describeError(error);
        log.warn({ url, err: lastError }, 'bus: JetStream setup failed, retrying');
        await sleep(1_000);
      }
    }
  }

  function onStatus(nc: NatsConnection, status: Status): void {
    if (connection !== nc) return;
    switch (status.type) {
      case 'disconnect':
        connected = false;
        downSince = Date.now();
        generation += 1;
        dropSession(`lost the connection to NATS at ${url}`);
        log.warn({ url }, 'bus: disconnected from NATS, reconnecting');
        break;
      case 'reconnect':
        connected = true;
        downSince = null;
        generation += 1;
        void setUp(nc, generation);
        break;
      case 'error':
        lastError = describeError(status.error);
        break;
      case 'staleConnection':
        lastError = 'the server stopped answering pings';
        break;
      default:
        break;
    }
  }

  async function watch(nc: NatsConnection): Promise<void> {
    try {
      for await (const status of nc.status()) onStatus(nc, status);
    } catch (error) {
      // The iterator ends with the connection; `run` notices that through `closed()`.
      log.debug({ url, err: describeError(error) }, 'bus: status stream ended');
    }
  }

  async function run(): Promise<void> {
    let attempt = 0;
    while (!closed) {
      let nc: NatsConnection;
      try {
        nc = await connect({
          servers: url.split(','),
          name: options.name,
          maxReconnectAttempts: -1,
          reconnectTimeWait: 500,
          reconnectJitter: 250,
          timeout: 3_000,
          // Notice a dead server behind a silent network within ~30 s, not the default minutes.
          pingInterval: 10_000,
          maxPingOut: 3,
        });
      } catch (error) {
        lastError = describeError(error);
        if (attempt === 0) log.warn({ url, err: lastError }, 'bus: cannot reach NATS, retrying');
        attempt += 1;
        await pause(Math.min(250 * 2 ** attempt, 2_000));
        continue;
      }
      attempt = 0;
      if (closed) {
        await nc.close();
        return;
      }
      connection = nc;
      connected = true;
      downSince = null;
      generation += 1;
      void watch(nc);
      void setUp(nc, generation);
      const ended = await nc.closed();
      connection = null;
      connected = false;
      downSince = Date.now();
      generation += 1;
      dropSession(`the connection to NATS at ${url} closed`);
      if (!closed) {
        lastError = ended ? describeError(ended) : 'connection closed';
        log.warn({ url, err: lastError }, 'bus: NATS connection closed, connecting again');
      }
    }
  }

  const running = run();

  return {
    url,
    current: () => session,
    ready(waitMs) {
      if (session) return Promise.resolve(session);
      if (closed) return Promise.reject(new BusUnavailableError('bus is closed'));
      return new Promise<NatsSession>((resolve, reject) => {
        const timer =
          waitMs === undefined
            ? undefined
            : setTimeout(() => {
                waiters.delete(waiter);
                reject(new BusUnavailableError(reason()));
              }, waitMs);
        const waiter = {
          resolve(ready: NatsSession) {
            clearTimeout(timer);
            resolve(ready);
          },
          reject(error: Error) {
            clearTimeout(timer);
            reject(error);
          },
        };
        waiters.add(waiter);
      });
    },
    reason,
    onReady(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      generation += 1;
      dropSession('bus is closed');
      for (const waiter of [...waiters]) waiter.reject(new BusUnavailableError('bus is closed'));
      waiters.clear();
      listeners.clear();
      wakeRetry?.();
      const nc = connection;
      if (nc) {
        // Settlements (acks, naks) still buffered go out before the socket closes.
        if (connected) await withTimeout(nc.flush(), 1_000, 'flush').catch(() => {});
        await nc.close();
      }
      await running;
    },
  };
}
