/**
 * One `consume()` of the NATS bus: a durable pull consumer per queue (shared by every process that
 * consumes the queue, so they compete for its jobs), pulled only for free handler slots so that no
 * job waits in a local buffer while its lease runs. When the connection drops, the pulls are ended
 * and started again once the bus is ready; running handlers carry on and settle when they can.
 */
import { AckPolicy, DeliverPolicy, type Consumer as JsConsumer, type JsMsg } from '@nats-io/jetstream';
import type { ConsumerMessages } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { Logger } from '../log.js';
import type { ConsumeOptions, Consumer, DeadLetter, Delivery, JobHandler } from './bus.js';
import { BusUnavailableError, DEFAULT_CONSUME_OPTIONS, retryDelay } from './bus.js';
import type { NatsLink, NatsSession } from './natsConnection.js';
import { unlessLost } from './natsConnection.js';
import { describeError, toBusError, withTimeout } from './natsErrors.js';
import type { NatsDeadLetters } from './natsDeadLetters.js';
import type { NatsNames } from './natsNames.js';
import { decodeJob } from './natsNames.js';

export interface NatsConsumerContext {
  link: NatsLink;
  names: NatsNames;
  deadLetters: NatsDeadLetters;
  log: Logger;
  /** Bound on waiting for an ack's confirmation or a flush. */
  settleTimeoutMs: number;
}

/** Pulling on one ready session; it ends when the session is lost or a pull fails. */
interface Round {
  session: NatsSession;
  puller: JsConsumer;
  live: boolean;
  broken: Error | null;
}

/** A pull request lasts this long on the server before the client issues a new one. */
const PULL_EXPIRES_MS = 10_000;
/** Jobs a consumer may have delivered and unsettled (naked with a delay included). */
const MAX_ACK_PENDING = 10_000;

export function startNatsConsumer(
  context: NatsConsumerContext,
  queue: string,
  handler: JobHandler,
  options: ConsumeOptions = {},
): Consumer {
  const { link, names, deadLetters, log } = context;
  const settings: Required<ConsumeOptions> = { ...DEFAULT_CONSUME_OPTIONS, ...options };
  const config = {
    durable_name: names.consumerName(queue),
    filter_subject: names.jobSubject(queue),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(settings.ackWaitMs),
    max_deliver: settings.maxDeliveries,
    max_ack_pending: MAX_ACK_PENDING,
  };
  let stopped = false;
  let running = 0;
  /** Messages asked for and not yet received: running + outstanding never exceeds concurrency. */
  let outstanding = 0;
  const handlers = new Set<Promise<void>>();
  const pulls = new Set<ConsumerMessages>();

  // One waiter (the loop); `poked` keeps a wake-up that arrives while the loop is busy.
  let poked = false;
  let resume: (() => void) | null = null;
  const poke = (): void => {
    poked = true;
    resume?.();
  };
  const nextPoke = (): Promise<void> =>
    poked
      ? Promise.resolve()
      : new Promise((resolve) => {
          resume = resolve;
        });

  function endPulls(): void {
    for (const pull of pulls) {
      try {
        pull.stop();
      } catch {
        // already ended
      }
    }
  }

  async function pull(round: Round, count: number): Promise<void> {
    outstanding += count;
    let taken = 0;
    let received = 0;
    const started = Date.now();
    try {
      const batch = await round.puller.fetch({ max_messages: count, expires: PULL_EXPIRES_MS });
      pulls.add(batch);
      if (stopped || !round.live) batch.stop();
      try {
        for await (const message of batch) {
          received += 1;
          // After a reconnect the client may pull again for the same fetch: give extra messages
          // (and anything arriving while stopping) straight back instead of exceeding concurrency.
          if (taken >= count || stopped) {
            message.nak();
            continue;
          }
          taken += 1;
          outstanding -= 1;
          run(message);
        }
      } finally {
        pulls.delete(batch);
      }
    } catch (error) {
      if (!stopped && round.live) round.broken ??= error instanceof Error ? error : new Error(String(error));
    } finally {
      outstanding -= count - taken;
      // A pull that ends at once without messages must not turn the loop into a busy spin.
      if (received === 0 && !round.broken && Date.now() - started < 500) setTimeout(poke, 500);
      else poke();
    }
  }

  /** Pulls for free slots until the session is lost, a pull fails or the consumer stops. */
  async function pullWhileHealthy(round: Round): Promise<void> {
    const offLost = round.session.onLost(poke);
    try {
      for (;;) {
        poked = false;
        if (stopped || link.current() !== round.session) return;
        if (round.broken) throw round.broken;
        const free = settings.concurrency - running - outstanding;
        if (free > 0) void pull(round, free);
        await nextPoke();
        resume = null;
      }
    } finally {
      offLost();
      round.live = false;
      endPulls();
    }
  }

  async function loop(): Promise<void> {
    let failures = 0;
    while (!stopped) {
      let session: NatsSession | null;
      try {
        session = await Promise.race([link.ready(), whenStopped]);
      } catch {
        return; // the bus was closed
      }
      if (!session || stopped) return;
      const started = Date.now();
      try {
        const info = await session.jsm.consumers.add(names.jobsStream, config);
        const puller = session.js.consumers.getConsumerFromInfo(info);
        await pullWhileHealthy({ session, puller, live: true, broken: null });
      } catch (error) {
        if (!stopped) log.warn({ queue, err: describeError(error) }, 'bus: pulling jobs failed, restarting');
      }
      if (stopped || link.current() !== session) continue; // a lost session: wait for the next one
      // Back off on repeated failures; a round that worked for a while starts the count again.
      failures = Date.now() - started > 30_000 ? 1 : failures + 1;
      const backoff = Math.min(250 * 2 ** failures, 5_000);
      await Promise.race([new Promise((resolve) => setTimeout(resolve, backoff)), whenStopped]);
    }
  }

  function run(message: JsMsg): void {
    running += 1;
    const handled = deliver(message)
      .catch((error: unknown) => log.error({ queue, err: describeError(error) }, 'bus: delivery failed'))
      .finally(() => {
        running -= 1;
        handlers.delete(handled);
        poke();
      });
    handlers.add(handled);
  }

  function requireSession(what: string): NatsSession {
    const session = link.current();
    if (!session) throw new BusUnavailableError(`${what}: ${link.reason()}`);
    return session;
  }

  async function bury(message: JsMsg, letter: DeadLetter): Promise<void> {
    const session = requireSession('term');
    try {
      await deadLetters.record(session, letter, message.seq, async () => {
        // JetStream 2.9 ignores `+TERM <reason>`; the reason is kept in the dead letter instead.
        message.term();
        await withTimeout(session.nc.flush(), context.settleTimeoutMs, 'term');
      });
    } catch (error) {
      throw toBusError(error, 'term');
    }
  }

  async function deliver(message: JsMsg): Promise<void> {
    const job = decodeJob(message.data);
    const deliveryCount = message.info.deliveryCount;
    const letterOf = (detail: string): DeadLetter => ({
      queue,
      id: job?.id ?? `seq-${message.seq}`,
      payload: job?.payload ?? {},
      deliveries: deliveryCount,
      reason: 'terminated',
      detail,
      at: new Date().toISOString(),
    });
    if (!job) {
      await bury(message, letterOf('unreadable job body'));
      return;
    }
    let settled = false;
    const delivery: Delivery = {
      id: job.id,
      queue,
      payload: job.payload,
      deliveryCount,
      async ack() {
        if (settled) return;
        settled = true;
        // Confirmed by the server, so a resolved ack is never redelivered. Made while disconnected,
        // the client sends it on reconnecting (waited for within the bound); in flight when the
        // connection drops, it fails at once: it is lost or not, and waiting would not tell.
        const session = link.current();
        const confirmed = message.ackAck({ timeout: context.settleTimeoutMs });
        await (session ? unlessLost(session, confirmed) : confirmed).catch((error: unknown) => {
          throw toBusError(error, 'ack');
        });
      },
      async nak(delayMs = 0) {
        if (settled) return;
        const session = requireSession('nak');
        settled = true;
        // The last allowed delivery is not redelivered anyway: nak at once so it is dead-lettered now.
        message.nak(deliveryCount >= settings.maxDeliveries || delayMs <= 0 ? undefined : delayMs);
        await withTimeout(session.nc.flush(), context.settleTimeoutMs, 'nak');
      },
      async term(reason) {
        if (settled) return;
        settled = true;
        try {
          await bury(message, letterOf(reason));
        } catch (error) {
          settled = false;
          throw error;
        }
      },
      async working() {
        if (settled) return;
        requireSession('working');
        message.working();
      },
    };
    let threw = false;
    try {
      await handler(delivery);
    } catch (error) {
      threw = true;
      log.debug({ queue, id: job.id, deliveryCount, err: describeError(error) }, 'bus: job handler failed');
    }
    if (settled) return;
    try {
      if (threw) await delivery.nak(retryDelay(settings.retryDelaysMs, deliveryCount));
      else await delivery.ack();
    } catch (error) {
      log.warn(
        { queue, id: job.id, err: describeError(error) },
        'bus: settling a job failed; it is delivered again once its lease ends',
      );
    }
  }

  let stop!: () => void;
  const whenStopped = new Promise<null>((resolve) => (stop = () => resolve(null)));
  const looping = loop();

  return {
    async stop() {
      if (!stopped) {
        stopped = true;
        stop();
        endPulls();
        poke();
      }
      await Promise.allSettled([...handlers]);
      await looping;
    },
  };
}
