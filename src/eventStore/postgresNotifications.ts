import pg from 'pg';
import type { ClientConfig } from 'pg';
import type { Logger } from '../log.js';

/**
 * LISTEN for the appends of every process on one channel, on a connection of its own (a pooled
 * one would be handed to queries and lose the LISTEN). Notifications are only wake-ups: what
 * subscribers deliver is always read from the log after their cursor, so a notification lost
 * while this connection is down only delays them until their next poll. It reconnects with
 * backoff, and wakes everyone once it is back, for what it may have missed meanwhile.
 */
export interface NotificationListener {
  /** Connects (once); later calls do nothing. */
  start(): void;
  /** Whether the LISTEN is in place now. */
  listening(): boolean;
  close(): Promise<void>;
}

export interface NotificationListenerOptions {
  client: ClientConfig;
  channel: string;
  wake: () => void;
  log: Logger;
  retryMinMs?: number;
  retryMaxMs?: number;
}

export function createNotificationListener(options: NotificationListenerOptions): NotificationListener {
  const retryMin = options.retryMinMs ?? 100;
  const retryMax = options.retryMaxMs ?? 5_000;
  let client: pg.Client | null = null;
  let listening = false;
  let started = false;
  let closed = false;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | null = null;

  function scheduleReconnect(): void {
    if (closed || retryTimer) return;
    const delay = Math.min(retryMax, retryMin * 2 ** Math.min(failures, 16));
    failures += 1;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect();
    }, delay);
  }

  function lost(which: pg.Client, error?: Error): void {
    if (which !== client) return;
    client = null;
    if (listening && !closed)
      options.log.warn({ err: error }, 'event store: lost the LISTEN connection, polling until it is back');
    listening = false;
    which.removeAllListeners('notification');
    which.end().catch(() => {});
    scheduleReconnect();
  }

  async function connect(): Promise<void> {
    if (closed) return;
    const next = new pg.Client(options.client);
    client = next;
    // Without an 'error' listener a dropped connection would crash the process.
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next));
    next.on('notification', () => options.wake());
    try {
      await next.connect();
      await next.query(`LISTEN "${options.channel}"`);
      if (closed || client !== next) {
        await next.end().catch(() => {});
        return;
      }
      listening = true;
      if (failures > 0) options.log.info('event store: LISTEN connection is back');
      failures = 0;
      options.wake();
    } catch (error) {
      if (failures === 0)
        options.log.warn({ err: error }, 'event store: cannot LISTEN for appends, will retry');
      lost(next, error as Error);
    }
  }

  return {
    start() {
      if (started || closed) return;
      started = true;
      void connect();
    },
    listening: () => listening,
    async close() {
      closed = true;
      listening = false;
      if (retryTimer) clearTimeout(retryTimer);
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
