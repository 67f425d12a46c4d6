import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import type { EventStore, EventToAppend, RecordedEvent } from '../../src/eventStore/eventStore.js';
import { EventStoreUnavailableError } from '../../src/eventStore/eventStore.js';
import {
  createPostgresEventStore,
  type PostgresEventStoreOptions,
} from '../../src/eventStore/postgresEventStore.js';
import { appendBatchStatement } from '../../src/eventStore/postgresAppends.js';
import { postgresNames } from '../../src/eventStore/postgresSchema.js';
import { eventStoreContract } from '../contracts/eventStore.contract.js';
import { eventually } from '../support/eventually.js';
import { expectRejection } from '../support/expectRejection.js';
import { startTcpProxy } from '../support/tcpProxy.js';
import {
  dropSchema,
  startPostgresServer,
  uniqueSchema,
  type PostgresServerHandle,
} from '../support/postgresServer.js';

const metadata = { now: '2026-11-22T10:00:00.000Z', actorId: 'tester', correlationId: 'corr-1' };
const event = (type: string, data: Record<string, unknown> = {}): EventToAppend => ({ type, data, metadata });

/** Files under `dir` holding `needle`; files the running server removes while we look are skipped. */
function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  const bytes = Buffer.from(needle);
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    try {
      if (statSync(path).isDirectory()) found.push(...filesHolding(path, needle));
      else if (readFileSync(path).includes(bytes)) found.push(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return found;
}

/** Runs `statement` on a connection of its own, outside any store (as the fixture's superuser). */
async function admin<Row extends pg.QueryResultRow>(
  url: string,
  statement: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(statement, values)).rows;
  } finally {
    await client.end();
  }
}

describe('PostgreSQL event store against a real server', function () {
  this.timeout(120_000);
  let server: PostgresServerHandle | null = null;
  const open: Array<{ store: EventStore; url: string; schema: string }> = [];

  /** A store on a schema of its own (several stores may share one: pass the same schema). */
  function newStore(
    on: PostgresServerHandle,
    schema: string,
    extra: Partial<PostgresEventStoreOptions> = {},
  ): EventStore {
    const store = createPostgresEventStore({ connectionString: on.url, schema, poolSize: 4, ...extra });
    open.push({ store, url: on.url, schema });
    return store;
  }

  before(async function () {
    server = await startPostgresServer(); // prints why when it returns null
    if (!server) this.skip();
  });
  afterEach(async () => {
    const closing = open.splice(0);
    await Promise.all(closing.map(({ store }) => store.close()));
    for (const schema of new Set(closing.map(({ url, schema }) => `${url}\n${schema}`))) {
      const [url, name] = schema.split('\n') as [string, string];
      await dropSchema(url, name).catch(() => {}); // an outage test's server may be gone
    }
  });
  after(async () => {
    await server?.dispose();
  });

  eventStoreContract('postgres', async () => {
    const schema = uniqueSchema('contract');
    const store = createPostgresEventStore({ connectionString: server!.url, schema, poolSize: 4 });
    return {
      store,
      dispose: async () => {
        await store.close();
        await dropSchema(server!.url, schema);
      },
    };
  });

  // Scrub and outage tests read the server's files or stop it: the shared server when it is ours,
  // else one of their own.
  let own: PostgresServerHandle | null = null;
  async function requireOwnServer(context: Mocha.Context, why: string): Promise<PostgresServerHandle> {
    if (server?.controllable) return server;
    own ??= await startPostgresServer({ own: true });
    if (own?.controllable) return own;
    console.log(
      `      skipped: ${why} needs a PostgreSQL server started by the test (POSTGRES_URL is not ours, and no binaries)`,
    );
    return context.skip();
  }
  after(async () => {
    await own?.dispose();
  });

  it('creates its schema once when several stores start on it at the same moment', async () => {
    const schema = uniqueSchema('race');
    const stores = Array.from({ length: 6 }, () => newStore(server!, schema));
    const results = await Promise.all(
      stores.map((store, i) => store.append(`race-${i}`, [event('Started')])),
    );
    expect(new Set(results.map((result) => result.position)).size).to.equal(6);
    expect(await stores[0]!.headPosition()).to.equal(6);
  });

  it('keeps JSON text exactly, key order and all, and reads back what another store appended', async () => {
    const schema = uniqueSchema('exact');
    const [writer, reader] = [newStore(server!, schema), newStore(server!, schema)];
    const data = { z: 1, a: { y: [3, 2, 1], b: 'x' }, m: '\u0000 nul and \\ backslash', emoji: '🙂' };
    await writer.append('exact-1', [event('Exact', data)]);
    const [stored] = await reader.readStream('exact-1');
    expect(JSON.stringify(stored!.data)).to.equal(JSON.stringify(data));
  });

  it('wakes followers in other stores through NOTIFY, without waiting for a poll', async () => {
    const schema = uniqueSchema('notify');
    const writer = newStore(server!, schema);
    // Polls far apart: only a notification can deliver within the test's time.
    const follower = newStore(server!, schema, { pollMinMs: 60_000, pollMaxMs: 60_000 });
    await writer.append('notify-0', [event('First')]);
    const subscription = follower.subscribeToAll({});
    const seen: RecordedEvent[] = [];
    const reading = (async () => {
      for await (const batch of subscription) seen.push(...batch.events);
    })();
    await eventually(() => (seen.length === 1 ? true : undefined), 10_000, 'the catch-up read');
    const started = Date.now();
    await writer.append('notify-0', [event('Second')]);
    await eventually(() => (seen.length === 2 ? true : undefined), 10_000, 'the notified read');
    expect(Date.now() - started).to.be.below(5_000);
    subscription.close();
    await reading;
  });

  it('delivers every event exactly once, in position order, to followers of writers that commit out of order', async () => {
    const schema = uniqueSchema('gapfree');
    const names = postgresNames(schema);
    // Four writers and three followers, each with a pool of its own, as separate hosts would have.
    const writers = Array.from({ length: 4 }, () => newStore(server!, schema));
    const followers = Array.from({ length: 3 }, () => newStore(server!, schema, { pollMaxMs: 200 }));
    await writers[0]!.append('gapfree-seed', [event('Seed')]);

    const delivered: RecordedEvent[][] = followers.map(() => []);
    const subscriptions = followers.map((follower, i) => {
      const subscription = follower.subscribeToAll({ maxBatch: 50 });
      const reading = (async () => {
        for await (const batch of subscription) delivered[i]!.push(...batch.events);
      })();
      return { subscription, reading };
    });

    // Transactions held open after taking their positions, exactly as the store takes them, until
    // either another appender queues behind them (the position counter serialises them) or every
    // follower has delivered an event past them (only possible if positions are not serialised:
    // then committing now would put an event behind every follower's cursor).
    const holder = new pg.Pool({ connectionString: server!.url, max: 2 });
    const observer = new pg.Pool({ connectionString: server!.url, max: 2 });
    let held = 0;
    async function holdOpenAppend(n: number): Promise<void> {
      const client = await holder.connect();
      try {
        await client.query('BEGIN');
        const statement = appendBatchStatement(names, [
          {
            stream: `gapfree-held-${n}`,
            expected: -1,
            events: [
              {
                id: randomUUID(),
                type: 'Held',
                data: JSON.stringify({ n }),
                metadata: JSON.stringify(metadata),
              },
            ],
          },
        ]);
        const { rows } = await client.query<{ last_position: string }>(statement.text, statement.values);
        const mine = Number(rows[0]!.last_position);
        const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [
          { pid: number },
        ];
        await eventually(
          async () => {
            const { rows: blocked } = await observer.query<{ n: number }>(
              'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))',
              [pid],
            );
            if (blocked[0]!.n > 0) return true;
            return delivered.every((events) => events.some((e) => e.position > mine)) ? true : undefined;
          },
          30_000,
          'contention on a held append',
        );
        await client.query('COMMIT');
        held += 1;
      } finally {
        client.release();
      }
    }

    let holding = true;
    const writing = writers.map(async (writer, w) => {
      let appended = 0;
      // Four concurrent callers per writer, so each writer also commits groups of appends.
      await Promise.all(
        Array.from({ length: 4 }, async (_, lane) => {
          for (let i = 0; holding || i < 25; i += 1) {
            await writer.append(
              `gapfree-w${w}-${lane}`,
              [event('Written', { w, lane, i }), event('Written', { w, lane, i, second: true })],
              {
                expectedVersion: 2 * i,
              },
            );
            appended += 2;
          }
        }),
      );
      return appended;
    });
    for (let n = 0; n < 8; n += 1) await holdOpenAppend(n);
    holding = false;
    const written = (await Promise.all(writing)).reduce((sum, count) => sum + count, 0);
    await Promise.all([holder.end(), observer.end()]);

    const all = await writers[0]!.readAll();
    expect(all).to.have.length(1 + held + written);
    const head = all.at(-1)!.position;
    await eventually(
      () => (delivered.every((events) => events.some((e) => e.position >= head)) ? true : undefined),
      30_000,
      'every follower reaching the head',
    );
    for (const { subscription, reading } of subscriptions) {
      subscription.close();
      await reading;
    }
    for (const events of delivered) {
      const ids = new Set(events.map((e) => e.id));
      const missed = all.filter((e) => !ids.has(e.id)).map((e) => `${e.type}@${e.position}`);
      expect(missed, 'events a follower skipped').to.deep.equal([]);
      const positions = events.map((e) => e.position);
      expect(positions.every((position, i) => i === 0 || position > positions[i - 1]!)).to.equal(true);
      expect(events.map((e) => e.id)).to.deep.equal(all.map((e) => e.id));
    }
  });

  it('leaves no byte of a deleted stream in the server files after scrub, while appends and a follower go on', async function () {
    const target = await requireOwnServer(this, 'reading the data directory');
    const schema = uniqueSchema('scrub');
    const store = newStore(target, schema);
    const follower = newStore(target, schema, { pollMaxMs: 200 });
    const secret = `launch-code-${randomUUID()}`;
    const doomed = `conversation-${randomUUID()}`;
    await store.append(doomed, [event('Said', { text: secret }), event('Said', { text: `again ${secret}` })]);
    await store.setStreamMetadata(doomed, { note: secret });
    await store.append('kept-1', [event('Kept', { text: 'still here' })]);
    // On disk before the deletion (WAL, and after a checkpoint the tables), and analysed the way
    // autovacuum would: what scrub must leave nothing of.
    await admin(target.url, `ANALYZE "${schema}".events, "${schema}".stream_metadata`);
    await admin(target.url, 'CHECKPOINT');
    expect(filesHolding(target.dataDir!, secret)).not.to.deep.equal([]);
    await store.append(
      'bulk',
      Array.from({ length: 2_000 }, (_, i) => event('Bulk', { i })),
    );
    await store.deleteStream(doomed);

    const seen: RecordedEvent[] = [];
    const subscription = follower.subscribeToAll({ filter: { streamPrefixes: ['during'] } });
    const reading = (async () => {
      for await (const batch of subscription) seen.push(...batch.events);
    })();
    let scrubbing = true;
    const appending = (async () => {
      let count = 0;
      while (scrubbing || count < 20) {
        await store.append('during', [event('During', { count })], { expectedVersion: count });
        count += 1;
      }
      return count;
    })();
    await store.scrub();
    scrubbing = false;
    const appended = await appending;

    expect(filesHolding(target.dataDir!, secret)).to.deep.equal([]);
    expect(await store.readStream(doomed)).to.deep.equal([]);
    expect(await store.streamInfo(doomed)).to.deep.equal({ version: 0, deleted: true, metadata: {} });
    expect((await store.readStream('kept-1')).map((e) => e.data)).to.deep.equal([{ text: 'still here' }]);
    expect(await store.readStream('bulk')).to.have.length(2_000);
    const during = await store.readStream('during');
    expect(during.map((e) => e.data['count'])).to.deep.equal(Array.from({ length: appended }, (_, i) => i));
    await eventually(() => (seen.length === appended ? true : undefined), 20_000, 'the follower catching up');
    expect(seen.map((e) => e.id)).to.deep.equal(during.map((e) => e.id));
    subscription.close();
    await reading;
    await store.append('kept-1', [event('Kept', { text: 'after scrub' })], { expectedVersion: 1 });
  });

  it('does not bring back a stream deleted while scrub was copying the log', async function () {
    const target = await requireOwnServer(this, 'reading the data directory');
    const schema = uniqueSchema('scrubrace');
    const store = newStore(target, schema, { scrubLockTimeoutMs: 300 });
    const secret = `late-secret-${randomUUID()}`;
    const late = `late-${randomUUID()}`;
    await store.append(late, [event('Said', { text: secret })]);
    await store.append('kept-2', [event('Kept')]);

    // A reader holds the events table, so scrub's copy is done but it cannot swap it in yet.
    const reader = new pg.Client({ connectionString: target.url });
    await reader.connect();
    await reader.query('BEGIN');
    await reader.query(`SELECT count(*) FROM "${schema}".events`);
    const scrubbing = store.scrub();
    const lockWait = `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
      JOIN pg_namespace s ON s.oid = c.relnamespace
      WHERE s.nspname = $1 AND c.relname = 'events' AND l.mode = 'AccessExclusiveLock' AND NOT l.granted`;
    await eventually(
      async () => ((await admin<{ n: number }>(target.url, lockWait, [schema]))[0]!.n > 0 ? true : undefined),
      20_000,
      'scrub waiting to swap in its copy',
    );
    // Deleted now, after the copy was made (it waits for scrub's lock try to time out).
    await store.deleteStream(late);
    await reader.query('COMMIT');
    await reader.end();
    await scrubbing;

    expect(await store.readStream(late)).to.deep.equal([]);
    expect((await store.readAll()).map((e) => e.streamName)).to.deep.equal(['kept-2']);
    expect(filesHolding(target.dataDir!, secret)).to.deep.equal([]);
  });

  it('bounds every call while the server does not answer, and catches up on what it missed when it does', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(server!.url).port) });
    try {
      const schema = uniqueSchema('hang');
      const viaProxy = server!.url.replace(/@[^/]+\//, `@${proxy.address}/`);
      const store = createPostgresEventStore({
        connectionString: viaProxy,
        schema,
        statementTimeoutMs: 1_000,
        connectTimeoutMs: 1_000,
        pollMaxMs: 300,
      });
      open.push({ store, url: server!.url, schema });
      const writer = newStore(server!, schema);
      await store.append('hang-1', [event('Before')]);
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({});
      const reading = (async () => {
        for await (const batch of subscription) seen.push(...batch.events);
      })();
      await eventually(() => (seen.length === 1 ? true : undefined), 10_000, 'the first event');

      proxy.setMode('silent');
      const started = Date.now();
      await expectRejection(store.append('hang-1', [event('During')]), EventStoreUnavailableError);
      expect((await store.health()).healthy).to.equal(false);
      expect(Date.now() - started).to.be.below(8_000);
      // Appended elsewhere while this store hears nothing: its notification is lost on the way.
      await writer.append('hang-1', [event('Meanwhile')]);

      proxy.setMode('forward');
      await eventually(() => (seen.length === 2 ? true : undefined), 20_000, 'the missed event');
      await eventually(
        async () => {
          try {
            return await store.append('hang-1', [event('After')]);
          } catch (error) {
            if (error instanceof EventStoreUnavailableError) return undefined;
            throw error;
          }
        },
        20_000,
        'an append once the server answers',
      );
      await eventually(() => (seen.length === 3 ? true : undefined), 20_000, 'the live event');
      expect(seen.map((e) => e.type)).to.deep.equal(['Before', 'Meanwhile', 'After']);
      subscription.close();
      await reading;
    } finally {
      await proxy.close();
    }
  });

  it('fails appends fast while the server is down, then appends again and keeps live subscriptions', async function () {
    const target = await requireOwnServer(this, 'stopping the server');
    const store = newStore(target, uniqueSchema('outage'), { connectTimeoutMs: 2_000, pollMaxMs: 500 });
    const stream = `outage-${randomUUID()}`;
    await store.append(stream, [event('Before')]);
    const subscription = store.subscribeToAll({ filter: { streamPrefixes: [stream] } });
    const seen: RecordedEvent[] = [];
    const reading = (async () => {
      for await (const batch of subscription) seen.push(...batch.events);
    })();
    await eventually(() => (seen.length === 1 ? true : undefined), 10_000, 'the first event');

    await target.stop();
    try {
      const started = Date.now();
      const error = await expectRejection(
        store.append(stream, [event('During')]),
        EventStoreUnavailableError,
      );
      expect(Date.now() - started).to.be.below(5_000);
      expect(error.message).to.include(new URL(target.url).port);
      const health = await store.health();
      expect(health.healthy).to.equal(false);
      expect(health.reason).to.match(/PostgreSQL at 127\.0\.0\.1/);
    } finally {
      await target.start();
    }

    await eventually(
      async () => {
        try {
          await store.append(stream, [event('After')]);
          return true;
        } catch (error) {
          if (error instanceof EventStoreUnavailableError) return undefined;
          throw error;
        }
      },
      30_000,
      'an append after the restart',
    );
    await eventually(() => (seen.length === 2 ? true : undefined), 30_000, 'the live subscription resuming');
    expect(seen.map((e) => e.type)).to.deep.equal(['Before', 'After']);
    expect(await store.health()).to.deep.equal({ healthy: true, reason: null });
    subscription.close();
    await reading;
  });
});
