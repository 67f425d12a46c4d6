/**
 * Dead letters of the NATS bus. JetStream keeps a message that used up its deliveries in the
 * work-queue stream and only emits an advisory, so every bus instance listens to the advisory,
 * reads the message by stream sequence, stores a `DeadLetter` in the dead-letter stream (msg-id
 * dedupe: several instances hearing the same advisory store it once), removes the job from the
 * work queue, and announces it on `deadLetterSubject(queue)`. `term` goes through the same path.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { JetStreamApiError } from '@nats-io/jetstream';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from '../log.js';
import type { DeadLetter } from './bus.js';
import { deadLetterSubject } from './bus.js';
import type { NatsLink, NatsSession } from './natsConnection.js';
import { describeError, toBusError } from './natsErrors.js';
import type { NatsNames } from './natsNames.js';
import { decodeJob } from './natsNames.js';

export interface NatsDeadLetters {
  /** Listens to the max-deliveries advisory on `nc` (once per connection). */
  attach(nc: NatsConnection): void;
  /**
   * Stores `letter` once per job message (`seq` of the jobs stream), then runs `remove` (takes the
   * job off the work queue), then announces the letter if this call was the one that stored it.
   */
  record(session: NatsSession, letter: DeadLetter, seq: number, remove: () => Promise<void>): Promise<void>;
  /** The newest `limit` dead letters of `queue`, newest first. */
  list(queue: string, limit: number, waitMs: number): Promise<DeadLetter[]>;
  close(): void;
}

interface MaxDeliveriesAdvisory {
  stream: string;
  stream_seq: number;
  deliveries: number;
}

/** JetStream's answers when the job is gone already (another instance removed it first). */
const ALREADY_REMOVED = new Set([10037, 10043, 10057]);
const MAX_ATTEMPTS = 20;

export function createNatsDeadLetters(options: {
  link: NatsLink;
  names: NatsNames;
  log: Logger;
}): NatsDeadLetters {
  const { link, names, log } = options;
  let closed = false;
  let attachedTo: NatsConnection | null = null;
  let advisorySubscription: Subscription | null = null;

  async function record(
    session: NatsSession,
    letter: DeadLetter,
    seq: number,
    remove: () => Promise<void>,
  ): Promise<void> {
    const ack = await session.js.publish(names.deadLetterStoreSubject(letter.queue), JSON.stringify(letter), {
      msgID: `job-${seq}`,
    });
    try {
      await remove();
    } finally {
      // Announced by the instance that stored it, even if removing failed (a retry removes it
      // then, and finds the letter already stored): the letter is durable at this point.
      if (!ack.duplicate) session.nc.publish(deadLetterSubject(letter.queue), JSON.stringify(letter));
    }
  }

  async function buryExhausted(advisory: MaxDeliveriesAdvisory): Promise<void> {
    const session = await link.ready();
    const stored = await session.jsm.streams
      .getMessage(names.jobsStream, { seq: advisory.stream_seq })
      .catch((error: unknown) => {
        if (error instanceof JetStreamApiError && ALREADY_REMOVED.has(error.code)) return null;
        throw error;
      });
    if (!stored) return; // already handled by another instance
    const queue = names.queueOf(stored.subject);
    if (queue === null) return;
    const job = decodeJob(stored.data);
    const letter: DeadLetter = {
      queue,
      id: job?.id ?? `seq-${advisory.stream_seq}`,
      payload: job?.payload ?? {},
      deliveries: advisory.deliveries,
      reason: 'max_deliveries',
      detail: job
        ? `not acknowledged after ${advisory.deliveries} deliveries`
        : `unreadable job body, not acknowledged after ${advisory.deliveries} deliveries`,
      at: new Date().toISOString(),
    };
    await record(session, letter, advisory.stream_seq, async () => {
      await session.jsm.streams
        .deleteMessage(names.jobsStream, advisory.stream_seq)
        .catch((error: unknown) => {
          if (!(error instanceof JetStreamApiError && ALREADY_REMOVED.has(error.code))) throw error;
        });
    });
  }

  /**
   * The advisory is sent once, so a failure is retried, and waiting for a reconnect does not count
   * as an attempt: giving up leaves the job in the stream, never delivered again and never buried.
   */
  async function onAdvisory(message: Msg): Promise<void> {
    let advisory: MaxDeliveriesAdvisory;
    try {
      advisory = message.json<MaxDeliveriesAdvisory>();
    } catch {
      return;
    }
    if (advisory.stream !== names.jobsStream || typeof advisory.stream_seq !== 'number') return;
    for (let attempt = 1; !closed; attempt += 1) {
      try {
        await buryExhausted(advisory);
        return;
      } catch (error) {
        if (closed) return;
        const context = { seq: advisory.stream_seq, attempt, err: describeError(error) };
        if (attempt >= MAX_ATTEMPTS) {
          log.error(context, 'bus: could not record a dead letter; the job stays in the jobs stream');
          return;
        }
        log.warn(context, 'bus: recording a dead letter failed, retrying');
        await sleep(Math.min(250 * 2 ** attempt, 5_000));
      }
    }
  }

  async function list(queue: string, limit: number, waitMs: number): Promise<DeadLetter[]> {
    const subject = names.deadLetterStoreSubject(queue);
    const session = await link.ready(waitMs);
    try {
      // An ordered (ephemeral) consumer reads the queue's letters; JetStream 2.9 cannot read a
      // subject backwards, and the stream keeps a bounded number of letters per queue.
      const reader = await session.js.consumers.get(names.deadLetterStream, { filter_subjects: subject });
      try {
        const pending = (await reader.info(true)).num_pending;
        if (pending === 0) return [];
        const letters: DeadLetter[] = [];
        const batch = await reader.fetch({ max_messages: pending, expires: 5_000 });
        for await (const message of batch) letters.push(message.json<DeadLetter>());
        return letters.slice(-limit).reverse();
      } finally {
        reader.delete().catch(() => {});
      }
    } catch (error) {
      throw toBusError(error, 'reading dead letters');
    }
  }

  return {
    attach(nc) {
      if (attachedTo === nc || closed) return;
      attachedTo = nc;
      advisorySubscription = nc.subscribe(names.maxDeliveriesAdvisory, {
        callback: (error, message) => {
          if (!error) void onAdvisory(message);
        },
      });
    },
    record,
    list,
    close() {
      closed = true;
      try {
        advisorySubscription?.unsubscribe();
      } catch {
        // the connection is already closed, and the subscription with it
      }
    },
  };
}
