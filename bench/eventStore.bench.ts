/**
 * Embedded event store: durable appends from 32 concurrent writers (group commit), single-append
 * latency, and reading all events. `synchronous=FULL`: every acknowledged append is fsync'd.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteEventStore } from '../src/eventStore/sqliteEventStore.js';
import { machine, median, percentile, report } from './support.js';

const metadata = { now: new Date().toISOString(), actorId: 'bench', correlationId: 'bench' };
const payload = { text: 'a typical small event payload with a sentence or two of text', n: 1, flag: true };

async function concurrentWriters(writers: number, appendsEach: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-es-'));
  const store = createSqliteEventStore({ path: join(dir, 'events.db') });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      for (let i = 0; i < appendsEach; i += 1) {
        await store.append(`stream-${writer}`, [{ type: 'Appended', data: payload, metadata }], {
          expectedVersion: i,
        });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return (writers * appendsEach) / seconds;
}

async function singleAppendLatencies(count: number): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-es-'));
  const store = createSqliteEventStore({ path: join(dir, 'events.db') });
  const latencies: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await store.append('single', [{ type: 'Appended', data: payload, metadata }], { expectedVersion: i });
    latencies.push(performance.now() - started);
  }
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return latencies;
}

async function readAllRate(events: number): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-es-'));
  const store = createSqliteEventStore({ path: join(dir, 'events.db') });
  const batch = Array.from({ length: 500 }, () => ({ type: 'Appended', data: payload, metadata }));
  for (let i = 0; i < events / 500; i += 1) await store.append(`bulk-${i % 100}`, batch);
  const rates: number[] = [];
  for (let run = 0; run < 3; run += 1) {
    const started = performance.now();
    let from = 0;
    let read = 0;
    for (;;) {
      const page = await store.readAll({ fromPosition: from, maxCount: 5_000 });
      if (page.length === 0) break;
      read += page.length;
      from = page.at(-1)!.position;
    }
    rates.push(read / ((performance.now() - started) / 1000));
  }
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return rates;
}

console.log(`machine: ${machine()}`);
const throughput: number[] = [];
for (let run = 0; run < 3; run += 1) throughput.push(await concurrentWriters(32, 2_000));
report(
  '32 concurrent writers, durable appends/s (median of 3)',
  median(throughput),
  'appends/s',
  '>= 20,000',
);
const latencies = await singleAppendLatencies(3_000);
report('single writer, one durable append: p50', percentile(latencies, 50), 'ms', '<= 1 ms');
report('single writer, one durable append: p99', percentile(latencies, 99), 'ms');
report(
  'read all events (300k, pages of 5,000; median of 3)',
  median(await readAllRate(300_000)),
  'events/s',
  '>= 200,000',
);
