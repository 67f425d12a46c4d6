import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { silentLogger } from '../../src/log.js';
import type { ProjectionEngine } from '../../src/projections/engine.js';
import type { Projection } from '../../src/projections/projection.js';
import type { ReadModels } from '../../src/projections/readModels.js';
import { REGISTRY_COLLECTION } from '../../src/projections/registry.js';
import { createProjectionStack } from '../../src/projections/stack.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';
import { ReadModelVersionError } from '../../src/projections/readModels.js';
import { eventually } from '../support/eventually.js';
import { expectRejection } from '../support/expectRejection.js';
import { counterProjection } from './fixtures/counterProjection.js';

const metadata = { now: '2026-11-22T10:00:00.000Z', actorId: 'tester', correlationId: 'c' };

interface Core {
  eventStore: EventStore;
  readStore: ReadStore;
  readModels: ReadModels;
  engine: ProjectionEngine;
  close(): Promise<void>;
}

function openCore(
  dir: string,
  projections: Projection[],
  owner = 'test',
  shared?: { eventStore: EventStore; readStore: ReadStore },
): Core {
  const eventStore = shared?.eventStore ?? createSqliteEventStore({ path: join(dir, 'events.db') });
  const readStore = shared?.readStore ?? createSqliteReadStore({ path: join(dir, 'read.db') });
  const { readModels, engine } = createProjectionStack({
    eventStore,
    readStore,
    projections,
    owner,
    log: silentLogger,
    batchSize: 100,
    leaseTtlMs: 600,
  });
  return {
    eventStore,
    readStore,
    readModels,
    engine,
    async close() {
      await engine.stop();
      if (!shared) {
        await eventStore.close();
        await readStore.close();
      }
    },
  };
}

const count = (stream: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ type: 'Counted', data: { stream, i }, metadata }));

describe('projection engine', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'archivist-proj-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('applies events to read models and answers once the position is reached (read-your-writes)', async () => {
    const core = openCore(dir, [counterProjection()]);
    await core.engine.start();
    await core.eventStore.append('a', count('a', 3));
    const { position } = await core.eventStore.append('b', [
      ...count('b', 1),
      { type: 'Ignored', data: {}, metadata },
    ]);
    expect(await core.engine.waitFor(position, { timeoutMs: 2_000 })).to.equal(true);
    expect(await core.readModels.get('counts', 'a')).to.deep.include({ total: 3, lastVersion: 3 });
    expect(await core.readModels.get('counts', 'b')).to.deep.include({ total: 1 });
    expect(await core.readModels.count('counts')).to.equal(2);
    expect(core.engine.status()).to.deep.equal([
      { name: 'counter', version: 1, generation: 1, state: 'live', position, error: null },
    ]);
    await core.close();
  });

  it('times out a wait for a position it cannot reach yet', async () => {
    const core = openCore(dir, [counterProjection()]);
    await core.engine.start();
    expect(await core.engine.waitFor(10_000, { timeoutMs: 100 })).to.equal(false);
    await core.close();
  });

  it('resumes from its checkpoint after a restart without applying anything twice', async () => {
    const first = openCore(dir, [counterProjection()]);
    await first.engine.start();
    const { position } = await first.eventStore.append('s', count('s', 250));
    await first.engine.waitFor(position);
    await first.close();

    const offline = createSqliteEventStore({ path: join(dir, 'events.db') });
    await offline.append('s', count('s', 50));
    const { position: head } = await offline.append('t', count('t', 5));
    await offline.close();

    const second = openCore(dir, [counterProjection()]);
    await second.engine.start();
    expect(await second.engine.waitFor(head)).to.equal(true);
    expect(await second.readModels.get('counts', 's')).to.deep.include({ total: 300, lastVersion: 300 });
    expect(await second.readModels.get('counts', 't')).to.deep.include({ total: 5 });
    await second.close();
  });

  it('builds a new projection version beside the old one and switches when it has caught up', async () => {
    const v1 = openCore(dir, [counterProjection(1, 1)]);
    await v1.engine.start();
    const { position } = await v1.eventStore.append('s', count('s', 400));
    await v1.engine.waitFor(position);
    await v1.close();

    // Version 2 counts double. Its process does not serve version 1's documents (their shape may
    // differ from what its code expects) until its own version is active.
    const v2 = openCore(dir, [counterProjection(2, 2)]);
    await expectRejection(v2.readModels.get('counts', 's'), ReadModelVersionError);
    await v2.engine.start();
    await eventually(() => (v2.engine.status()[0]?.state === 'live' ? true : undefined));
    expect(v2.engine.status()[0]).to.include({ state: 'live', version: 2, generation: 2 });
    expect(await v2.engine.waitFor(position)).to.equal(true);
    expect(await v2.readModels.get('counts', 's')).to.deep.include({ total: 800 });
    const instances = await v2.readStore.find(REGISTRY_COLLECTION, { filter: { status: { $exists: true } } });
    expect(instances.map((doc) => [doc['version'], doc['status']])).to.deep.include.members([[2, 'live']]);
    await v2.close();
  });

  it('moves versions only forward: with processes of versions 1 and 2 running at once, 2 ends active and 1 never returns', async () => {
    const eventStore = createSqliteEventStore({ path: join(dir, 'events.db') });
    const readStore = createSqliteReadStore({ path: join(dir, 'read.db') });
    const old = openCore(dir, [counterProjection(1, 1)], 'old-deployment', { eventStore, readStore });
    await old.engine.start();
    await eventStore.append('s', count('s', 300));
    expect(await old.engine.waitFor(await eventStore.headPosition())).to.equal(true);
    /** Every change of the active version, in order. */
    const history: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const active = await readStore.get<{ id: string; version: number }>(
          REGISTRY_COLLECTION,
          'active:counter',
        );
        if (active && history.at(-1) !== active.version) history.push(active.version);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const fresh = openCore(dir, [counterProjection(2, 2)], 'new-deployment', { eventStore, readStore });
    await fresh.engine.start();
    // Both keep running while events arrive; the old one keeps restarting its runner too.
    for (let i = 0; i < 20; i += 1) await eventStore.append(`t${i % 3}`, count(`t${i % 3}`, 5));
    const head = await eventStore.headPosition();
    expect(await fresh.engine.waitFor(head, { timeoutMs: 10_000 })).to.equal(true);
    await eventually(() => (old.engine.status()[0]?.state === 'outdated' ? true : undefined), 10_000);
    await eventStore.append('s', count('s', 10));
    expect(await fresh.engine.waitFor(await eventStore.headPosition())).to.equal(true);
    sampling = false;
    await sampler;
    expect(history).to.deep.equal([1, 2]);
    const active = await readStore.get<{ id: string; version: number }>(
      REGISTRY_COLLECTION,
      'active:counter',
    );
    expect(active).to.include({ version: 2 });
    expect(await fresh.readModels.get('counts', 's')).to.deep.include({ total: 620 });
    await expectRejection(old.readModels.get('counts', 's'), ReadModelVersionError);
    expect(await old.engine.waitFor(0, { timeoutMs: 50 })).to.equal(false);
    await old.close();
    await fresh.close();
    await eventStore.close();
    await readStore.close();
  });

  it('rebuilds from scratch beside the running instance, with identical results, and drops the old one', async () => {
    const core = openCore(dir, [counterProjection()]);
    await core.engine.start();
    for (const stream of ['x', 'y', 'z']) await core.eventStore.append(stream, count(stream, 120));
    const { position } = await core.eventStore.append('x', count('x', 1));
    await core.engine.waitFor(position);
    const before = await core.readModels.find('counts', { sort: [['id', 1]] });

    const progress: number[] = [];
    await core.engine.rebuild('counter', { onProgress: (at) => progress.push(at) });
    expect(progress.at(-1)).to.equal(position);
    const after = await core.readModels.find('counts', { sort: [['id', 1]] });
    expect(after).to.deep.equal(before);
    // Writes keep flowing into the new instance.
    const { position: later } = await core.eventStore.append('y', count('y', 2));
    expect(await core.engine.waitFor(later)).to.equal(true);
    expect(await core.readModels.get('counts', 'y')).to.deep.include({ total: 122 });
    await core.close();
  });

  it('stops at an event its projection cannot apply, reports why, and does not skip it', async () => {
    const fragile: Projection = {
      ...counterProjection(),
      async apply(event, view) {
        if (event.data['poison']) throw new Error('cannot apply poison');
        await counterProjection().apply(event, view);
      },
    };
    const core = openCore(dir, [fragile]);
    await core.engine.start();
    const { position: good } = await core.eventStore.append('s', count('s', 2));
    await core.engine.waitFor(good);
    const { position: bad } = await core.eventStore.append('s', [
      { type: 'Counted', data: { poison: true }, metadata },
    ]);
    await core.eventStore.append('s', count('s', 1));
    expect(await core.engine.waitFor(bad, { timeoutMs: 500 })).to.equal(false);
    // The runner retries from its checkpoint (and fails again): sample its status while it is failed.
    const status = await eventually(() => core.engine.status().find((s) => s.state === 'failed'), 5_000);
    expect(status).to.include({ state: 'failed', error: 'cannot apply poison', position: good });
    expect(await core.readModels.get('counts', 's')).to.deep.include({ total: 2 });
    await core.close();
  });

  it('lets only one process apply a projection at a time, and another take over when it stops', async () => {
    const eventStore = createSqliteEventStore({ path: join(dir, 'events.db') });
    const readStore = createSqliteReadStore({ path: join(dir, 'read.db') });
    const a = openCore(dir, [counterProjection()], 'process-a', { eventStore, readStore });
    const b = openCore(dir, [counterProjection()], 'process-b', { eventStore, readStore });
    await a.engine.start();
    await eventually(() => (a.engine.status()[0]?.state === 'live' ? true : undefined));
    await b.engine.start();
    await eventually(() => (b.engine.status()[0]?.state === 'standby' ? true : undefined));
    const { position } = await eventStore.append('s', count('s', 30));
    expect(await a.engine.waitFor(position)).to.equal(true);
    expect(a.engine.status()[0]!.state).to.equal('live');
    expect(b.engine.status()[0]!.state).to.equal('standby');
    await a.close();
    const { position: later } = await eventStore.append('s', count('s', 10));
    expect(await b.engine.waitFor(later, { timeoutMs: 5_000 })).to.equal(true);
    expect(await b.readModels.get('counts', 's')).to.deep.include({ total: 40 });
    await b.close();
    await eventStore.close();
    await readStore.close();
  });

  it('refuses the writes of a holder that paused past its lease: no event is applied twice', async () => {
    const eventStore = createSqliteEventStore({ path: join(dir, 'events.db') });
    const readStore = createSqliteReadStore({ path: join(dir, 'read.db') });
    let release: () => void = () => undefined;
    const paused = new Promise<void>((resolve) => (release = resolve));
    let pausing = true;
    const stalling: Projection = {
      ...counterProjection(),
      async apply(event, view) {
        // Process A stalls (a long GC pause, a frozen VM) in the middle of a batch.
        if (pausing && event.data['stall']) await paused;
        await counterProjection().apply(event, view);
      },
    };
    const a = openCore(dir, [stalling], 'process-a', { eventStore, readStore });
    const b = openCore(dir, [counterProjection()], 'process-b', { eventStore, readStore });
    await a.engine.start();
    await eventually(() => (a.engine.status()[0]?.state === 'live' ? true : undefined));
    await b.engine.start();
    const { position } = await eventStore.append('s', [
      ...count('s', 3),
      { type: 'Counted', data: { stall: true }, metadata },
    ]);
    // A's lease (600 ms) runs out while it is stalled; B takes over and applies everything.
    expect(await b.engine.waitFor(position, { timeoutMs: 10_000 })).to.equal(true);
    expect(b.engine.status()[0]!.state).to.equal('live');
    pausing = false;
    release();
    // A wakes up and tries to commit its batch: fenced. More events still count once each.
    await eventually(() => (a.engine.status()[0]?.state !== 'live' ? true : undefined));
    const { position: later } = await eventStore.append('s', count('s', 2));
    expect(await b.engine.waitFor(later, { timeoutMs: 10_000 })).to.equal(true);
    expect(await b.readModels.get('counts', 's')).to.deep.include({ total: 6, lastVersion: 6 });
    await a.close();
    await b.close();
    await eventStore.close();
    await readStore.close();
  });

  it('after kill -9 mid-burst, resumes at the right place: every event applied exactly once', async () => {
    for (let run = 0; run < 2; run += 1) {
      const runDir = join(dir, `run-${run}`);
      const acks = await appendAndProjectThenKill(runDir, 800 + run * 600);
      // Same owner as the killed process: a restart takes its leases back at once.
      const core = openCore(runDir, [counterProjection()], 'embedded');
      const head = await core.eventStore.headPosition();
      await core.engine.start();
      expect(await core.engine.waitFor(head, { timeoutMs: 10_000 })).to.equal(true);
      const streams = await core.eventStore.readAll();
      const versions = new Map<string, number>();
      for (const event of streams) versions.set(event.streamName, event.streamVersion);
      for (const [stream, version] of versions) {
        expect(await core.readModels.get('counts', stream), stream).to.deep.include({
          total: version,
          lastVersion: version,
        });
      }
      for (const ack of acks) expect(versions.get(ack.stream) ?? 0).to.be.at.least(ack.version);
      await core.close();
    }
  });
});

async function appendAndProjectThenKill(
  dir: string,
  killAfter: number,
): Promise<Array<{ stream: string; version: number }>> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'appendAndProject.ts'), dir],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const acks: Array<{ stream: string; version: number }> = [];
  let buffer = '';
  await new Promise<void>((resolve) => {
    child.on('exit', () => resolve());
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const [kind, stream, version] = line.split(' ');
        if (kind !== 'ack') continue;
        acks.push({ stream: stream!, version: Number(version) });
        if (acks.length === killAfter) child.kill('SIGKILL');
      }
    });
  });
  return acks;
}
