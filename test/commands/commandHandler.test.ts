import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { defineAggregate } from '../../src/commands/aggregate.js';
import { ConcurrencyError, createCommandHandler } from '../../src/commands/commandHandler.js';
import { reserve } from '../../src/commands/reservation.js';
import { createReadStoreSnapshots } from '../../src/commands/snapshots.js';
import { taskAggregate } from '../../src/commands/aggregates.js';
import { createCommandService } from '../../src/commands/commandService.js';
import type { Command, Decider, Event, Metadata } from '../../src/domain/shared/index.js';
import { defineEvents } from '../../src/domain/shared/index.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { WrongExpectedVersionError } from '../../src/eventStore/eventStore.js';
import { createMemoryEventStore } from '../../src/eventStore/memoryEventStore.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';
import { expectRejection } from '../support/expectRejection.js';
import { createTask } from '../../src/commands/newTask.js';

const at = (now: string): Metadata => ({ now, actorId: 'user-9', correlationId: 'c' });

// A toy aggregate with a long stream: a tally that remembers when it last changed (from metadata).
type Added = Event<'Added', { amount: number }>;
type TallyEvent = Added;
type Add = Command<'Add', { amount: number }>;
interface Tally {
  total: number;
  changedAt: string | null;
}
const tallyDecider: Decider<Add, TallyEvent, Tally> = {
  decide: (command) => [{ type: 'Added', data: { amount: command.data.amount } }],
  evolve: (state, event) => ({ total: state.total + event.data.amount, changedAt: event.metadata.now }),
  initialState: () => ({ total: 0, changedAt: null }),
};
const tally = defineAggregate({
  category: 'tally',
  // One tally per test, named by the test's calls.
  idOf: () => 'tally',
  decider: tallyDecider,
  events: defineEvents<TallyEvent>({ Added: {} }),
  snapshot: { every: 10, schema: 1 },
});

/** An event store that counts the events it hands out when streams are read. */
function countingReads(store: EventStore): EventStore & { eventsRead: () => number } {
  let read = 0;
  return {
    ...store,
    async readStream(stream, options) {
      const events = await store.readStream(stream, options);
      read += events.length;
      return events;
    },
    eventsRead: () => read,
  };
}

describe('command handler (the aggregate kit)', () => {
  it('lets evolve see each event’s metadata, new events included', async () => {
    const handler = createCommandHandler(tally, { eventStore: createMemoryEventStore() });
    await handler.handle('t1', {
      type: 'Add',
      data: { amount: 2 },
      metadata: at('2026-11-24T10:00:00.000Z'),
    });
    const outcome = await handler.handle('t1', {
      type: 'Add',
      data: { amount: 3 },
      metadata: at('2026-11-24T11:00:00.000Z'),
    });
    expect(outcome.state).to.deep.equal({ total: 5, changedAt: '2026-11-24T11:00:00.000Z' });
    expect(outcome.appended[0]!.metadata.now).to.equal('2026-11-24T11:00:00.000Z');
    expect((await handler.read('t1')).state).to.deep.equal(outcome.state);
  });

  it('keeps a long stream cheap to load: folds only the events after its snapshot', async () => {
    const store = countingReads(createMemoryEventStore());
    const readStore = createSqliteReadStore({ path: ':memory:' });
    const snapshots = createReadStoreSnapshots(readStore);
    const handler = createCommandHandler(tally, { eventStore: store, snapshots });
    for (let i = 1; i <= 25; i += 1)
      await handler.handle('long', {
        type: 'Add',
        data: { amount: 1 },
        metadata: at(`2026-11-24T10:00:${String(i).padStart(2, '0')}.000Z`),
      });
    expect(await snapshots.load('tally-long')).to.deep.include({ version: 20, schema: 1 });
    const before = store.eventsRead();
    const { state, version } = await handler.read('long');
    expect(state).to.deep.equal({ total: 25, changedAt: '2026-11-24T10:00:25.000Z' });
    expect(version).to.equal(25);
    expect(store.eventsRead() - before).to.equal(5);
    // A snapshot of another state shape is ignored: the stream is folded from the start.
    const reshaped = createCommandHandler(
      { ...tally, snapshot: { every: 10, schema: 2 } },
      { eventStore: store, snapshots },
    );
    const from = store.eventsRead();
    expect((await reshaped.read('long')).state).to.deep.equal(state);
    expect(store.eventsRead() - from).to.equal(25);
    await readStore.close();
  });

  it('upcasts events written by an older schema version when it reads them', async () => {
    const eventStore = createMemoryEventStore();
    const taskId = randomUUID();
    // TaskCreated as version 1 wrote it: no owner, no schema version in the metadata.
    await eventStore.append(`task-${taskId}`, [
      {
        type: 'TaskCreated',
        data: { taskId, jobType: 'echo', input: {} },
        metadata: at('2026-01-01T00:00:00.000Z'),
      },
    ]);
    const tasks = createCommandService(taskAggregate, { eventStore, clock: () => new Date() });
    const outcome = await tasks.execute(
      'CancelTask',
      { taskId, reason: null },
      { actorId: 'admin', correlationId: 'c' },
    );
    expect(outcome.state).to.include({ status: 'cancelled', owner: 'user-9' });
    // New events carry the version they were written with.
    const created = await createTask(tasks, 'echo', {}, { actorId: 'user-2', correlationId: 'c' });
    const [stored] = await eventStore.readStream(`task-${created.taskId}`);
    expect(stored!.metadata.schemaVersion).to.equal(2);
    expect(stored!.data['owner']).to.equal('user-2');
  });

  it('retries a version conflict on fresh state, and gives up after a bounded number of attempts', async () => {
    const inner = createMemoryEventStore();
    let conflicts = 0;
    const contended: EventStore = {
      ...inner,
      async append(stream, events, options) {
        conflicts += 1;
        throw new WrongExpectedVersionError(stream, options?.expectedVersion ?? 'any', 99);
      },
    };
    const handler = createCommandHandler(tally, {
      eventStore: contended,
      maxAttempts: 5,
      backoffMs: () => 0,
    });
    await expectRejection(
      handler.handle('x', { type: 'Add', data: { amount: 1 }, metadata: at('2026-11-24T10:00:00.000Z') }),
      ConcurrencyError,
    );
    expect(conflicts).to.equal(5);
  });

  it('bounds the claims of a reservation that keeps changing hands', async () => {
    const inner = createMemoryEventStore();
    let attempts = 0;
    const churning: EventStore = {
      ...inner,
      async append(stream, events, options) {
        attempts += 1;
        throw new WrongExpectedVersionError(stream, options?.expectedVersion ?? 'any', 1);
      },
    };
    await expectRejection(
      reserve(churning, 'url', 'k', 'doc-1', at('2026-11-24T10:00:00.000Z')),
      ConcurrencyError,
    );
    expect(attempts).to.equal(12);
  });
});

describe('event catalogs', () => {
  it('decode upcasts one version at a time, and refuse unknown types and future versions', () => {
    type Renamed = Event<'Renamed', { title: string; slug: string }>;
    const catalog = defineEvents<Renamed>({
      Renamed: {
        version: 3,
        upcast: {
          1: (data) => ({ title: data['name'] }),
          2: (data) => ({ ...data, slug: String(data['title']).toLowerCase() }),
        },
      },
    });
    expect(catalog.types).to.deep.equal(['Renamed']);
    const decoded = catalog.decode({ type: 'Renamed', data: { name: 'Hello' }, metadata: at('x') });
    expect(decoded.data).to.deep.equal({ title: 'Hello', slug: 'hello' });
    expect(catalog.stamp('Renamed', at('x')).schemaVersion).to.equal(3);
    expect(() => catalog.decode({ type: 'Other', data: {}, metadata: at('x') })).to.throw(/no definition/);
    expect(() =>
      catalog.decode({ type: 'Renamed', data: {}, metadata: { ...at('x'), schemaVersion: 4 } }),
    ).to.throw(/version 4/);
    expect(() => defineEvents<Renamed>({ Renamed: { version: 2 } })).to.throw(/no upcaster from version 1/);
  });
});
