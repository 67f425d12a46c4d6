import { join } from 'node:path';
import type { Bus } from './bus/bus.js';
import type { Config } from './config.js';
import { EVENTS_APPENDED_SUBJECT, announceAppends } from './eventStore/appendNotifications.js';
import type { EventStore } from './eventStore/eventStore.js';
import type { Logger } from './log.js';
import { normalizeForIndex } from './text/normalize.js';
import type { ReadStore } from './readStore/readStore.js';
import type { RateLimiter } from './rateLimit/rateLimiter.js';

/*
 * The configured adapter of each store port. Each adapter module is imported only when it is
 * configured: the MongoDB driver, the EventStoreDB gRPC client and the NATS client together take
 * about half a second to load, which an embedded deployment should not pay at every start.
 */

/** The event log file of an embedded data folder. */
export const eventLogPath = (dataDir: string): string => join(dataDir, 'events.db');

/**
 * The configured event store. `bus`, when shared with other processes, carries their append
 * announcements so this process's subscriptions wake at once (and its own appends are announced).
 */
export async function openEventStore(
  config: Config,
  options: { pollIntervalMs?: number | null; bus?: Bus; log?: Logger } = {},
): Promise<EventStore> {
  switch (config.eventStore) {
    case 'file': {
      const { createSqliteEventStore } = await import('./eventStore/sqliteEventStore.js');
      const bus = options.bus;
      const store = createSqliteEventStore({
        path: eventLogPath(config.dataDir),
        // Announcements are hints (at most once): other processes' appends are also polled for.
        pollIntervalMs: options.pollIntervalMs ?? config.eventStorePollMs ?? (bus ? 250 : null),
        ...(bus
          ? { externalAppends: (wake: () => void) => bus.subscribe(EVENTS_APPENDED_SUBJECT, wake) }
          : {}),
      });
      return bus ? announceAppends(store, bus) : store;
    }
    case 'memory': {
      const { createMemoryEventStore } = await import('./eventStore/memoryEventStore.js');
      return createMemoryEventStore();
    }
    case 'postgres': {
      const { createPostgresEventStore } = await import('./eventStore/postgresEventStore.js');
      return createPostgresEventStore({
        connectionString: config.postgresUrl!,
        ...(options.log ? { log: options.log } : {}),
      });
    }
    case 'esdb': {
      const { createEsdbEventStore } = await import('./eventStore/esdbEventStore.js');
      return createEsdbEventStore({
        connectionString: config.eventStoreUrl!,
        ...(options.log ? { log: options.log } : {}),
      });
    }
  }
}

export async function openBus(config: Config, log: Logger): Promise<Bus> {
  if (config.bus === 'nats') {
    const { createNatsBus } = await import('./bus/natsBus.js');
    return createNatsBus({ url: config.natsUrl!, log: log.child({ component: 'bus' }) });
  }
  const { createLocalBus } = await import('./bus/localBus.js');
  return createLocalBus({
    path: config.eventStore === 'memory' ? undefined : join(config.dataDir, 'queues.db'),
  });
}

export async function openReadStore(config: Config, log?: Logger): Promise<ReadStore> {
  if (config.readStore === 'mongodb') {
    const { createMongoReadStore } = await import('./readStore/mongoReadStore.js');
    return createMongoReadStore({
      url: config.mongodbUrl!,
      database: config.mongodbDatabase,
      normalizeText: normalizeForIndex,
      ...(log ? { log } : {}),
    });
  }
  const { createSqliteReadStore } = await import('./readStore/sqliteReadStore.js');
  return createSqliteReadStore({
    path: config.eventStore === 'memory' ? ':memory:' : join(config.dataDir, 'read.db'),
    // What is indexed and searched is normalised as the parsing stage defines it (Arabic letter variants, diacritics).
    normalizeText: normalizeForIndex,
  });
}

/**
 * The rate limiter: shared through NATS key-value when the bus is NATS (every API process counts
 * against the same windows), in this process's memory otherwise.
 */
export async function openRateLimiter(config: Config, log: Logger): Promise<RateLimiter> {
  if (config.bus === 'nats') {
    const { createNatsRateLimiter } = await import('./rateLimit/natsRateLimiter.js');
    return createNatsRateLimiter({ url: config.natsUrl!, maxWindowMs: RATE_LIMIT_WINDOW_MS, log });
  }
  const { createMemoryRateLimiter } = await import('./rateLimit/memoryRateLimiter.js');
  return createMemoryRateLimiter();
}

/** The window of every rate limit: the spec's limits are per minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;
