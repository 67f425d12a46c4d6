import {
  DiscardPolicy,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { nanos, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { silentLogger, type Logger } from '../log.js';
import type { Bus, Consumer, Notification } from './bus.js';
import { BusUnavailableError } from './bus.js';
import { createNatsLink, unlessLost, type NatsSession } from './natsConnection.js';
import { startNatsConsumer } from './natsConsumer.js';
import { describeError, toBusError, withTimeout } from './natsErrors.js';
import { createNatsDeadLetters } from './natsDeadLetters.js';
import { encodeJob, jobIdKey, jobMessageId, natsNames } from './natsNames.js';

export interface NatsBusOptions {
  /** `nats://host:port`; several servers of one cluster separated by commas. */
  url: string;
  /** Subject prefix and stream-name base, so several deployments can share a server (default `archivist`). */
  prefix?: string;
  /**
   * JetStream's duplicate window for job messages (default 2 minutes): the fast path of
   * de-duplication. Beyond it, a key-value record of every job id ever enqueued keeps a job id
   * from being enqueued twice.
   */
  dedupeWindowMs?: number;
  log?: Logger;
  /** How long a call waits for a (re)connection before `BusUnavailableError` (default 2 s). */
  waitForConnectionMs?: number;
  /** Dead letters kept per queue; the oldest go first (default 10,000). */
  deadLettersPerQueue?: number;
}

/** "stream name already in use with a different configuration" */
const STREAM_NAME_IN_USE = 10058;
/** "wrong last sequence": a key-value `create` of a key that exists. */
const KEY_EXISTS = 10071;
const SENT = 'sent';
const API_TIMEOUT_MS = 5_000;

interface Registration {
  subject: string;
  handler: (message: Notification) => void;
  nc: NatsConnection | null;
  subscription: Subscription | null;
}

/**
 * The Bus on NATS: work queues on JetStream (one work-queue stream for all queues, a durable pull
 * consumer per queue, dead letters built from the max-deliveries advisory), notifications on core
 * NATS. The factory returns at once and connects in the background, forever; while the server is
 * away, calls fail with `BusUnavailableError` after a short wait, `health()` says why, and consumers
 * and subscriptions resume by themselves when it is back.
 */
export function createNatsBus(options: NatsBusOptions): Bus {
  const log = options.log ?? silentLogger;
  const names = natsNames(options.prefix ?? 'archivist');
  const dedupeWindow = nanos(options.dedupeWindowMs ?? 120_000);
  const waitMs = options.waitForConnectionMs ?? 2_000;
  const registrations = new Set<Registration>();
  const consumers = new Set<Consumer>();
  let closed = false;

  const jobsStream: Partial<StreamConfig> & { name: string } = {
    name: names.jobsStream,
    subjects: [names.jobsSubjects],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: dedupeWindow,
  };
  const deadLetterStream: Partial<StreamConfig> & { name: string } = {
    name: names.deadLetterStream,
    subjects: [names.deadLetterSubjects],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: dedupeWindow,
    max_msgs_per_subject: options.deadLettersPerQueue ?? 10_000,
    discard: DiscardPolicy.Old,
  };

  async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }) {
    try {
      await jsm.streams.add(config);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === STREAM_NAME_IN_USE)) throw error;
      await jsm.streams.update(config.name, config);
    }
  }

  function attach(registration: Registration, nc: NatsConnection): void {
    registration.subscription = nc.subscribe(registration.subject, {
      callback: (error, message) => {
        if (error) return;
        let payload: unknown;
        try {
          payload = message.json();
        } catch {
          return; // not one of ours
        }
        if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return;
        try {
          registration.handler({ subject: message.subject, payload: payload as Record<string, unknown> });
        } catch (handlerError) {
          log.error({ subject: message.subject, err: describeError(handlerError) }, 'bus: subscriber failed');
        }
      },
    });
    registration.nc = nc;
  }

  function detach(registration: Registration): void {
    try {
      registration.subscription?.unsubscribe();
    } catch {
      // the connection is gone, and the subscription with it
    }
  }

  /** Subscriptions follow the client across reconnects; only a new connection needs them again. */
  function attachAll(session: NatsSession): void {
    deadLetters.attach(session.nc);
    for (const registration of registrations) {
      if (registration.nc === session.nc) continue;
      try {
        attach(registration, session.nc);
      } catch (error) {
        // One bad subject must not keep the whole bus from becoming ready.
        log.error({ subject: registration.subject, err: describeError(error) }, 'bus: cannot subscribe');
      }
    }
  }

  /** Job ids ever enqueued, per session (the bucket handle is bound to a connection). */
  const jobIds = new WeakMap<NatsSession, KV>();

  const link = createNatsLink({
    url: options.url,
    name: `archivist-bus-${process.pid}`,
    log,
    apiTimeoutMs: API_TIMEOUT_MS,
    async setup(session) {
      await ensureStream(session.jsm, jobsStream);
      await ensureStream(session.jsm, deadLetterStream);
      jobIds.set(session, await new Kvm(session.js).create(names.jobIdsBucket, { history: 1 }));
      attachAll(session);
    },
  });

  /**
   * Claims a job id for good. A record is created as `pending` before the job is published and
   * turned `sent` after, so a publish that crashed half-way is published again (JetStream's window
   * removes the copy when it did get through); only a `sent` id is a duplicate.
   */
  async function claimJobId(kv: KV, key: string): Promise<'claimed' | 'duplicate'> {
    try {
      await kv.create(key, 'pending');
      return 'claimed';
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === KEY_EXISTS)) throw error;
      const entry = await kv.get(key);
      return entry?.string() === SENT ? 'duplicate' : 'claimed';
    }
  }
  // Declared after the link, but first used by its setup, which only runs once connected.
  const deadLetters = createNatsDeadLetters({ link, names, log });
  // Also on ready: a subscription registered while the setup ran is attached here.
  link.onReady(attachAll);

  function assertOpen(): void {
    if (closed) throw new BusUnavailableError('bus is closed');
  }

  return {
    async enqueue(queue, job) {
      assertOpen();
      const subject = names.jobSubject(queue);
      const session = await link.ready(waitMs);
      const kv = jobIds.get(session)!;
      const key = jobIdKey(queue, job.id);
      try {
        if ((await unlessLost(session, claimJobId(kv, key))) === 'duplicate') return false;
        const published = session.js.publish(subject, encodeJob(job.id, job.payload), {
          msgID: jobMessageId(queue, job.id),
          timeout: API_TIMEOUT_MS,
        });
        // A connection lost mid-publish fails now; the caller's retry is deduplicated by job id.
        await unlessLost(session, published);
        await unlessLost(session, kv.put(key, SENT));
        return true;
      } catch (error) {
        throw toBusError(error, `enqueue on ${queue}`);
      }
    },

    consume(queue, handler, consumeOptions) {
      assertOpen();
      const consumer = startNatsConsumer(
        { link, names, deadLetters, log, settleTimeoutMs: API_TIMEOUT_MS },
        queue,
        handler,
        consumeOptions,
      );
      const tracked: Consumer = {
        async stop() {
          await consumer.stop();
          consumers.delete(tracked);
        },
      };
      consumers.add(tracked);
      return tracked;
    },

    async deadLetters(queue, listOptions = {}) {
      assertOpen();
      return deadLetters.list(queue, listOptions.limit ?? 100, waitMs);
    },

    publish(subject, payload) {
      if (closed) return;
      const session = link.current();
      // Notifications are hints for whoever listens now: while disconnected there is nobody to
      // tell, and buffering them would deliver stale hints later. Failing would turn the caller's
      // successful work (an append) into an error, so they are dropped.
      if (!session) {
        log.debug({ subject }, 'bus: notification dropped while NATS is unreachable');
        return;
      }
      try {
        session.nc.publish(subject, JSON.stringify(payload));
      } catch (error) {
        const translated = toBusError(error, `publish on ${subject}`);
        if (!(translated instanceof BusUnavailableError)) throw translated;
        log.debug({ subject }, 'bus: notification dropped, the connection is closing');
      }
    },

    subscribe(subject, handler) {
      const registration: Registration = { subject, handler, nc: null, subscription: null };
      const session = link.current();
      if (session && !closed) attach(registration, session.nc); // throws for an invalid subject
      registrations.add(registration);
      return () => {
        registrations.delete(registration);
        detach(registration);
      };
    },

    async health() {
      if (closed) return { healthy: false, reason: 'bus is closed' };
      let session = link.current();
      if (!session) {
        try {
          session = await link.ready(waitMs);
        } catch {
          return { healthy: false, reason: link.reason() };
        }
      }
      try {
        await withTimeout(unlessLost(session, session.nc.flush()), waitMs, 'ping');
        return { healthy: true, reason: null };
      } catch {
        if (!link.current()) return { healthy: false, reason: link.reason() };
        return { healthy: false, reason: `NATS at ${options.url} did not answer a ping within ${waitMs} ms` };
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...consumers].map((consumer) => consumer.stop()));
      deadLetters.close();
      registrations.forEach(detach);
      registrations.clear();
      await link.close();
    },
  };
}
