/**
 * Durable appends per second, PostgreSQL adapter against the embedded SQLite one in the same run,
 * at 1 and 32 concurrent writers (each writer appends one event at a time to its own stream,
 * with an expected version). Both acknowledge only committed, flushed appends: SQLite with
 * `synchronous=FULL`, PostgreSQL with its defaults (`fsync=on`, `synchronous_commit=on`). Uses
 * POSTGRES_URL when set, otherwise starts a private PostgreSQL 15 (test/support/postgresServer.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore } from '../src/eventStore/eventStore.js';
import { createPostgresEventStore } from '../src/eventStore/postgresEventStore.js';
import { createSqliteEventStore } from '../src/eventStore/sqliteEventStore.js';
import { dropSchema, startPostgresServer, uniqueSchema } from '../test/support/postgresServer.js';
import { machine, median } from './support.js';

const metadata = { now: new Date().toISOString(), actorId: 'bench', correlationId: 'bench' };
const payload = { text: 'a typical small event payload with a sentence or two of text', n: 1, flag: true };
const ROUNDS = 3;
/** Appends per round: enough for a few seconds at the slower concurrency. */
const APPENDS: Record<number, number> = { 1: 1_500, 32: 9_600 };

interface Target {
  name: string;
  open(): Promise<{ store: EventStore; dispose(): Promise<void> }>;
}

async function appendsPerSecond(target: Target, writers: number): Promise<number> {
  const { store, dispose } = await target.open();
  // Warm-up outside the clock: schema creation, connections, JIT.
  await store.append('warmup', [{ type: 'Warm', data: payload, metadata }]);
  const each = APPENDS[writers]! / writers;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      for (let i = 0; i < each; i += 1) {
        await store.append(`stream-${writer}`, [{ type: 'Appended', data: payload, metadata }], {
          expectedVersion: i,
        });
      }
    }),
  );
  const rate = (writers * each) / ((performance.now() - started) / 1000);
  await dispose();
  return rate;
}

const sqlite: Target = {
  name: 'sqlite',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'bench-es-'));
    const store = createSqliteEventStore({ path: join(dir, 'events.db') });
    return {
      store,
      dispose: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

console.log(`machine: ${machine()}`);
const server = await startPostgresServer(); // prints why when it returns null
const postgres: Target | null = server && {
  name: 'postgres',
  async open() {
    const schema = uniqueSchema('bench');
    const store = createPostgresEventStore({ connectionString: server.url, schema });
    return {
      store,
      dispose: async () => {
        await store.close();
        await dropSchema(server.url, schema);
      },
    };
  },
};
if (!server) {
  console.log(
    'PostgreSQL: NOT MEASURED — no server (set POSTGRES_URL, or install postgresql-15); SQLite figures only',
  );
} else {
  console.log(
    `PostgreSQL: ${server.version} at ${server.controllable ? 'a private server started by this benchmark' : server.url}`,
  );
}

const rows: Array<{ writers: number; sqlite: number; postgres: number | null }> = [];
for (const writers of [1, 32]) {
  const rates: Record<string, number[]> = { sqlite: [], postgres: [] };
  // Rounds alternate between the adapters so that a slow moment of the machine hits both.
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const target of postgres ? [sqlite, postgres] : [sqlite])
      rates[target.name]!.push(await appendsPerSecond(target, writers));
  }
  rows.push({
    writers,
    sqlite: median(rates['sqlite']!),
    postgres: postgres ? median(rates['postgres']!) : null,
  });
}
await server?.dispose();

const cell = (value: number | null, width: number): string =>
  (value === null ? 'n/a' : Math.round(value).toLocaleString('en')).padStart(width);
console.log(`\ndurable appends/s, median of ${ROUNDS} rounds (one event per append)`);
console.log(
  `${'writers'.padEnd(8)} ${'sqlite'.padStart(10)} ${'postgres'.padStart(10)} ${'pg/sqlite'.padStart(10)}`,
);
for (const row of rows) {
  const ratio = row.postgres === null ? 'n/a' : (row.postgres / row.sqlite).toFixed(2);
  console.log(
    `${String(row.writers).padEnd(8)} ${cell(row.sqlite, 10)} ${cell(row.postgres, 10)} ${ratio.padStart(10)}`,
  );
}
