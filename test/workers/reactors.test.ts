import { expect } from 'chai';
import type { EventStore, RecordedEvent } from '../../src/eventStore/eventStore.js';
import { createMemoryEventStore } from '../../src/eventStore/memoryEventStore.js';
import { silentLogger } from '../../src/log.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';
import type { JobType } from '../../src/workers/jobs.js';
import { createReactorRunner, type Reactor } from '../../src/workers/reactors.js';
import { eventually } from '../support/eventually.js';
import { startTestApp } from '../support/testApp.js';
import { createTask } from '../../src/commands/newTask.js';

const metadata = { now: '2026-11-24T10:00:00.000Z', actorId: 'tester', correlationId: 'c' };
const append = (store: EventStore, type: string, n: number) =>
  store.append('s', [{ type, data: { n }, metadata }]);

function recording(name = 'recorder', fail?: (event: RecordedEvent) => boolean) {
  const seen: number[] = [];
  const reactor: Reactor = {
    name,
    handles: ['Happened'],
    async react(event) {
      if (fail?.(event)) throw new Error(`cannot react to ${String(event.data['n'])}`);
      seen.push(event.data['n'] as number);
    },
  };
  return { reactor, seen };
}

describe('reactors', () => {
  let eventStore: EventStore;
  let readStore: ReadStore;
  beforeEach(() => {
    eventStore = createMemoryEventStore();
    readStore = createSqliteReadStore({ path: ':memory:' });
  });
  afterEach(async () => {
    await readStore.close();
  });
  const runner = (reactors: Reactor[], owner = 'p1') =>
    createReactorRunner({
      eventStore,
      readStore,
      reactors,
      owner,
      log: silentLogger,
      leaseTtlMs: 600,
      idleFlushMs: 20,
    });

  it('starts at the head of the log when first deployed: history is not reacted to', async () => {
    await append(eventStore, 'Happened', 1);
    await append(eventStore, 'Happened', 2);
    const { reactor, seen } = recording();
    const running = runner([reactor]);
    await running.start();
    const { position } = await append(eventStore, 'Happened', 3);
    await append(eventStore, 'Other', 4);
    expect(await running.waitFor(position)).to.equal(true);
    expect(seen).to.deep.equal([3]);
    await running.stop();
  });

  it('resumes from its checkpoint after a restart, reacting only to what came after', async () => {
    const first = recording();
    const a = runner([first.reactor]);
    await a.start();
    const { position } = await append(eventStore, 'Happened', 1);
    expect(await a.waitFor(position)).to.equal(true);
    await a.stop();
    await append(eventStore, 'Happened', 2); // while no reactor runs
    const second = recording();
    const b = runner([second.reactor]);
    await b.start();
    const { position: later } = await append(eventStore, 'Happened', 3);
    expect(await b.waitFor(later)).to.equal(true);
    expect(first.seen).to.deep.equal([1]);
    expect(second.seen).to.deep.equal([2, 3]);
    await b.stop();
  });

  it('retries a failed reaction from its checkpoint and never skips it', async () => {
    let failing = true;
    const { reactor, seen } = recording('flaky', (event) => failing && event.data['n'] === 2);
    const running = runner([reactor]);
    await running.start();
    await append(eventStore, 'Happened', 1);
    const { position } = await append(eventStore, 'Happened', 2);
    await append(eventStore, 'Happened', 3);
    const failed = await eventually(() => running.status().find((status) => status.state === 'failed'));
    expect(failed).to.include({ name: 'flaky', error: 'cannot react to 2' });
    failing = false;
    expect(await running.waitFor(position + 1, 10_000)).to.equal(true);
    // 1 may come twice (at least once), 2 and 3 come, in order.
    expect(seen.filter((n) => n !== 1)).to.deep.equal([2, 3]);
    await running.stop();
  });

  it('runs each reactor in one process at a time; another takes over when it stops', async () => {
    const one = recording();
    const two = recording();
    const a = runner([one.reactor], 'p1');
    const b = runner([two.reactor], 'p2');
    await a.start();
    await eventually(() => (a.status()[0]?.state === 'live' ? true : undefined));
    await b.start();
    await eventually(() => (b.status()[0]?.state === 'standby' ? true : undefined));
    const { position } = await append(eventStore, 'Happened', 1);
    expect(await a.waitFor(position)).to.equal(true);
    await a.stop();
    const { position: later } = await append(eventStore, 'Happened', 2);
    expect(await b.waitFor(later, 5_000)).to.equal(true);
    expect(one.seen).to.deep.equal([1]);
    expect(two.seen).to.deep.equal([2]);
    await b.stop();
  });

  it('a rebuild of the read models enqueues no job again (effects live in reactors, not projections)', async () => {
    const ran: string[] = [];
    const recordingJob: JobType = {
      name: 'record',
      async run({ taskId }) {
        ran.push(taskId);
        return null;
      },
    };
    const app = await startTestApp({ jobs: [recordingJob] });
    try {
      const caller = { actorId: 't', correlationId: 'c' };
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1)
        ids.push((await createTask(app.runtime.tasks, 'record', {}, caller)).taskId);
      await eventually(() => (ran.length === 3 ? true : undefined));
      await app.runtime.projections.rebuild('tasks');
      const { taskId, position } = await createTask(app.runtime.tasks, 'record', {}, caller);
      expect(await app.runtime.reactors.waitFor(position)).to.equal(true);
      await eventually(() => (ran.includes(taskId) ? true : undefined));
      expect([...ran].sort()).to.deep.equal([...ids, taskId].sort());
    } finally {
      await app.stop();
    }
  });
});
