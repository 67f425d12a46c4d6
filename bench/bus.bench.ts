/**
 * The same bus workloads on the embedded bus (SQLite file) and on NATS JetStream (a nats-server it
 * starts, or `NATS_URL`): enqueue rate, work-queue throughput (jobs consumed and acked — on NATS with
 * server-confirmed acks — median of 3, concurrency 1 and 8), and publish → subscribe latency between
 * two bus instances (one message in flight at a time; two connections on NATS).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bus } from '../src/bus/bus.js';
import { createLocalBus } from '../src/bus/localBus.js';
import { createNatsBus } from '../src/bus/natsBus.js';
import { startNatsServer } from '../test/support/natsServer.js';
import { machine, median, percentile, report } from './support.js';

const JOBS = 5_000;
const PINGS = 5_000;
const PRODUCERS = 32;

let run = 0;
const newQueue = (): string => `bench_${process.pid}_${(run += 1)}`;

async function enqueueAll(bus: Bus, queue: string, count: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: PRODUCERS }, async () => {
      while (next < count) {
        const i = next;
        next += 1;
        await bus.enqueue(queue, { id: `job-${i}`, payload: { i, text: 'a small job payload' } });
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

async function consumeAll(bus: Bus, queue: string, count: number, concurrency: number): Promise<number> {
  let acked = 0;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const started = performance.now();
  const consumer = bus.consume(
    queue,
    async (delivery) => {
      await delivery.ack();
      acked += 1;
      if (acked === count) finish();
    },
    { concurrency },
  );
  await finished;
  const rate = count / ((performance.now() - started) / 1000);
  await consumer.stop();
  return rate;
}

async function pubSubLatencies(publisher: Bus, subscriber: Bus, count: number): Promise<number[]> {
  const latencies: number[] = [];
  let received!: () => void;
  const unsubscribe = subscriber.subscribe('bench.ping', (message) => {
    latencies.push(performance.now() - (message.payload['sent'] as number));
    received();
  });
  await new Promise((resolve) => setTimeout(resolve, 100)); // the subscription reaches the server
  for (let i = 0; i < count; i += 1) {
    const arrived = new Promise<void>((resolve) => (received = resolve));
    publisher.publish('bench.ping', { sent: performance.now(), i });
    await arrived;
  }
  unsubscribe();
  return latencies;
}

async function measure(label: string, bus: Bus, other: Bus): Promise<void> {
  for (const concurrency of [1, 8]) {
    const enqueueRates: number[] = [];
    const consumeRates: number[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const queue = newQueue();
      enqueueRates.push(await enqueueAll(bus, queue, JOBS));
      consumeRates.push(await consumeAll(bus, queue, JOBS, concurrency));
    }
    if (concurrency === 1) {
      report(
        `${label}: enqueue, ${PRODUCERS} concurrent producers (median of 3)`,
        median(enqueueRates),
        'jobs/s',
      );
    }
    report(
      `${label}: work queue consume + ack, concurrency ${concurrency} (median of 3)`,
      median(consumeRates),
      'jobs/s',
    );
  }
  const latencies = await pubSubLatencies(bus, other, PINGS);
  report(`${label}: publish → subscribe latency p50`, percentile(latencies, 50), 'ms');
  report(`${label}: publish → subscribe latency p99`, percentile(latencies, 99), 'ms');
}

async function main(): Promise<void> {
  console.log(machine());
  const dir = mkdtempSync(join(tmpdir(), 'bench-bus-'));
  // One bus object serves both sides: the embedded bus is in-process by design.
  const local = createLocalBus({ path: join(dir, 'bus.db') });
  try {
    await measure('embedded', local, local);
  } finally {
    await local.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const server = await startNatsServer();
  if (!server) process.exit(0); // the reason is printed
  console.log(`nats-server at ${server.url}`);
  const bus = createNatsBus({ url: server.url, prefix: `bench_${process.pid}` });
  const other = createNatsBus({ url: server.url, prefix: `bench_${process.pid}` });
  try {
    await measure('NATS', bus, other);
  } finally {
    await Promise.all([bus.close(), other.close()]);
    await server.dispose();
  }
}

await main();
