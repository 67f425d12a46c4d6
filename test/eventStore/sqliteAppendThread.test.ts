import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { configureEventDatabase, type SerializedAppend } from '../../src/eventStore/sqliteAppends.js';
import { inThreadCommitter, workerThreadCommitter } from '../../src/eventStore/sqliteAppendThread.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { expectRejection } from '../support/expectRejection.js';

const metadata = { now: '2026-11-27T04:00:00.000Z', actorId: 'tester', correlationId: 'corr' };
const append = (stream: string, n: number): SerializedAppend => ({
  stream,
  expectedVersion: 'any',
  events: [{ id: `${stream}-${n}`, type: 'Counted', data: JSON.stringify({ n }), metadata: '{}' }],
});

describe("SQLite event store's writer thread", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'archivist-es-thread-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('commits in a worker thread what the store reads back on its own connection', async () => {
    const store = createSqliteEventStore({ path: join(dir, 'events.db') });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        store.append(`s-${n % 5}`, [{ type: 'Counted', data: { n }, metadata }]),
      ),
    );
    expect(new Set(results.map((result) => result.position)).size).to.equal(50);
    const all = await store.readAll();
    expect(all.map((event) => event.data['n']).sort((a, b) => Number(a) - Number(b))).to.deep.equal(
      Array.from({ length: 50 }, (_, n) => n),
    );
    await store.close();
  });

  it('fails the commit it held when the thread cannot start, then commits on the caller thread', async () => {
    // A folder is no database file: the worker's connection fails to open.
    const fallbackDb = new Database(':memory:');
    configureEventDatabase(fallbackDb);
    const committer = workerThreadCommitter(dir, () => inThreadCommitter(fallbackDb));
    const failure = await expectRejection(
      committer.commit([append('s', 1)], '2026-11-27T04:00:00.000Z'),
      Error,
    );
    expect(failure.message).to.match(/writer thread failed: .*(SQLITE_CANTOPEN|unable to open)/);
    const [outcome] = await committer.commit([append('s', 2)], '2026-11-27T04:00:00.000Z');
    expect(outcome).to.deep.equal({ ok: true, result: { nextExpectedVersion: 1, position: 1 } });
    await committer.close();
    fallbackDb.close();
  });

  it('commits what was appended before close, then lets the process exit', async () => {
    const path = join(dir, 'events.db');
    const store = createSqliteEventStore({ path });
    const appends = Array.from({ length: 20 }, (_, n) =>
      store.append('s', [{ type: 'Counted', data: { n }, metadata }]),
    );
    await store.close();
    expect((await Promise.all(appends)).at(-1)!.nextExpectedVersion).to.equal(20);
    const reopened = createSqliteEventStore({ path });
    expect((await reopened.readStream('s')).length).to.equal(20);
    await reopened.close();
  });

  it('lets a process that appended and closed the store end by itself (exit code 0)', () => {
    const fixture = join(import.meta.dirname, 'fixtures', 'appendAndClose.ts');
    const child = spawnSync(process.execPath, ['--import', 'tsx', fixture, join(dir, 'events.db')], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(child.stdout).to.equal('appended 1\nclosed\n');
    expect(child.status).to.equal(0);
  });
});
