import { expect } from 'chai';
import type { Metadata } from '../../src/domain/shared/index.js';
import type { AllBatch, EventStore, EventToAppend, RecordedEvent } from '../../src/eventStore/eventStore.js';
import { StreamDeletedError, WrongExpectedVersionError } from '../../src/eventStore/eventStore.js';
import { expectRejection } from '../support/expectRejection.js';

export interface EventStoreFixture {
  store: EventStore;
  /** Closes the store and removes whatever it created. */
  dispose(): Promise<void>;
}

const metadata: Metadata = { now: '2026-11-22T10:00:00.000Z', actorId: 'tester', correlationId: 'corr-1' };
const event = (type: string, data: Record<string, unknown> = {}): EventToAppend => ({ type, data, metadata });
let streamCounter = 0;
/** Unique stream names, so suites also work against a shared server that keeps old data. */
const newStream = (prefix = 'test'): string =>
  `${prefix}-${process.pid}-${Date.now()}-${(streamCounter += 1)}`;

/** Reads batches until `count` events (or `until` holds); the subscription ends with the loop. */
export async function collect(
  iterable: AsyncIterable<RecordedEvent[] | AllBatch>,
  count: number,
  until?: (events: RecordedEvent[]) => boolean,
): Promise<RecordedEvent[]> {
  const seen: RecordedEvent[] = [];
  for await (const batch of iterable) {
    seen.push(...(Array.isArray(batch) ? batch : batch.events));
    if (seen.length >= count || until?.(seen)) break;
  }
  return seen;
}

/** The EventStore port's semantics; every adapter must pass it unchanged. */
export function eventStoreContract(adapter: string, create: () => Promise<EventStoreFixture>): void {
  describe(`EventStore contract: ${adapter}`, function () {
    let fixture: EventStoreFixture;
    let store: EventStore;
    beforeEach(async () => {
      fixture = await create();
      store = fixture.store;
    });
    afterEach(async () => fixture.dispose());

    describe('append', () => {
      it('numbers a new stream 1..n and gives increasing global positions', async () => {
        const stream = newStream();
        const result = await store.append(stream, [event('A'), event('B'), event('C')], {
          expectedVersion: 'no_stream',
        });
        expect(result.nextExpectedVersion).to.equal(3);
        const events = await store.readStream(stream);
        expect(events.map((e) => [e.type, e.streamVersion])).to.deep.equal([
          ['A', 1],
          ['B', 2],
          ['C', 3],
        ]);
        expect(events[2]!.position).to.equal(result.position);
        expect(events[0]!.position).to.be.lessThan(events[1]!.position);
        expect(events[1]!.position).to.be.lessThan(events[2]!.position);
      });

      it('keeps data, metadata and ids exactly as appended', async () => {
        const stream = newStream();
        const data = { text: 'مرحبا — “quotes” ✓', nested: { list: [1, 2.5, null, true], empty: {} } };
        await store.append(stream, [
          { id: '0b6d8f0e-8f63-4f5a-9d37-5e1c2b7a9e10', type: 'Rich', data, metadata },
        ]);
        const [stored] = await store.readStream(stream);
        expect(stored!.id).to.equal('0b6d8f0e-8f63-4f5a-9d37-5e1c2b7a9e10');
        expect(stored!.data).to.deep.equal(data);
        expect(stored!.metadata).to.deep.equal(metadata);
        expect(stored!.streamName).to.equal(stream);
        expect(Number.isNaN(Date.parse(stored!.recordedAt))).to.equal(false);
      });

      it('checks an exact expected version and leaves the stream unchanged on conflict', async () => {
        const stream = newStream();
        await store.append(stream, [event('A'), event('B')]);
        const error = await store
          .append(stream, [event('X')], { expectedVersion: 1 })
          .catch((e: unknown) => e);
        expect(error).to.be.instanceOf(WrongExpectedVersionError);
        expect((error as WrongExpectedVersionError).actual).to.equal(2);
        expect((error as WrongExpectedVersionError).expected).to.equal(1);
        expect((await store.readStream(stream)).map((e) => e.type)).to.deep.equal(['A', 'B']);
        await store.append(stream, [event('C')], { expectedVersion: 2 });
        expect((await store.streamInfo(stream)).version).to.equal(3);
      });

      it('enforces no_stream, stream_exists and any', async () => {
        const stream = newStream();
        await expectRejection(
          store.append(stream, [event('A')], { expectedVersion: 'stream_exists' }),
          WrongExpectedVersionError,
        );
        await store.append(stream, [event('A')], { expectedVersion: 'no_stream' });
        await expectRejection(
          store.append(stream, [event('B')], { expectedVersion: 'no_stream' }),
          WrongExpectedVersionError,
        );
        await store.append(stream, [event('B')], { expectedVersion: 'stream_exists' });
        await store.append(stream, [event('C')], { expectedVersion: 'any' });
        expect((await store.streamInfo(stream)).version).to.equal(3);
      });

      it('treats expected version 0 as "no events yet"', async () => {
        const stream = newStream();
        await store.append(stream, [event('A')], { expectedVersion: 0 });
        await expectRejection(
          store.append(stream, [event('B')], { expectedVersion: 0 }),
          WrongExpectedVersionError,
        );
      });

      it('checks the expected version of an empty append without writing', async () => {
        const stream = newStream();
        const first = await store.append(stream, [event('A')]);
        const empty = await store.append(stream, [], { expectedVersion: 1 });
        expect(empty.nextExpectedVersion).to.equal(1);
        expect(empty.position).to.equal(first.position);
        await expectRejection(store.append(stream, [], { expectedVersion: 5 }), WrongExpectedVersionError);
      });

      it('lets exactly one of many concurrent appends with the same expected version win', async () => {
        const stream = newStream();
        await store.append(stream, [event('Seed')]);
        const outcomes = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) =>
            store.append(stream, [event('Racer', { i })], { expectedVersion: 1 }),
          ),
        );
        const winners = outcomes.filter((o) => o.status === 'fulfilled');
        const losers = outcomes.filter((o) => o.status === 'rejected');
        expect(winners).to.have.length(1);
        expect(losers).to.have.length(19);
        for (const loser of losers) expect(loser.reason).to.be.instanceOf(WrongExpectedVersionError);
        expect((await store.readStream(stream)).map((e) => e.type)).to.deep.equal(['Seed', 'Racer']);
      });

      it('acknowledges concurrent appends to different streams, all of them', async () => {
        const streams = Array.from({ length: 32 }, () => newStream('many'));
        const results = await Promise.all(streams.map((s, i) => store.append(s, [event('E', { i })])));
        expect(new Set(results.map((r) => r.position)).size).to.equal(32);
        for (const [i, s] of streams.entries()) {
          const [only] = await store.readStream(s);
          expect(only!.data).to.deep.equal({ i });
        }
      });
    });

    describe('stream names', () => {
      it('keeps any characters a name can hold, NUL and % included, and finds nothing for an unknown one', async () => {
        const odd = `${newStream('odd')}-a\u0000b%00c%25-مرحبا`;
        await store.append(odd, [event('A')], { expectedVersion: 'no_stream' });
        const [stored] = await store.readStream(odd);
        expect(stored!.streamName).to.equal(odd);
        expect((await store.streamInfo(odd)).version).to.equal(1);
        const plain = odd.replace('\u0000', '');
        expect(await store.readStream(plain)).to.deep.equal([]);
        expect(await store.readStream(`${newStream('unknown')}\u0000`)).to.deep.equal([]);
        expect((await store.streamInfo(`${newStream('unknown')}\u0000`)).version).to.equal(0);
        const all = await store.readAll({
          fromPosition: stored!.position - 1,
          filter: { streamPrefixes: [odd.slice(0, -8)] },
        });
        expect(all.map((e) => e.streamName)).to.deep.equal([odd]);
      });
    });

    describe('reading', () => {
      it('reads a stream forwards from a version, with a maximum count', async () => {
        const stream = newStream();
        await store.append(
          stream,
          ['A', 'B', 'C', 'D', 'E'].map((t) => event(t)),
        );
        const read = await store.readStream(stream, { fromVersion: 2, maxCount: 3 });
        expect(read.map((e) => e.type)).to.deep.equal(['B', 'C', 'D']);
      });

      it('reads a stream backwards from the end or from a version', async () => {
        const stream = newStream();
        await store.append(
          stream,
          ['A', 'B', 'C', 'D'].map((t) => event(t)),
        );
        expect(
          (await store.readStream(stream, { direction: 'backwards', maxCount: 2 })).map((e) => e.type),
        ).to.deep.equal(['D', 'C']);
        expect(
          (await store.readStream(stream, { direction: 'backwards', fromVersion: 2 })).map((e) => e.type),
        ).to.deep.equal(['B', 'A']);
      });

      it('returns nothing for a stream that does not exist', async () => {
        expect(await store.readStream(newStream('missing'))).to.deep.equal([]);
        expect(await store.streamInfo(newStream('missing'))).to.deep.equal({
          version: 0,
          deleted: false,
          metadata: {},
        });
      });

      it('reads all events after a position, in order, with filters', async () => {
        const start = await store.headPosition();
        const a = newStream('alpha');
        const b = newStream('beta');
        await store.append(a, [event('X'), event('Y')]);
        await store.append(b, [event('X')]);
        await store.append(a, [event('Z')]);
        const all = (await store.readAll({ fromPosition: start })).filter(
          (e) => e.streamName === a || e.streamName === b,
        );
        expect(all.map((e) => `${e.streamName === a ? 'a' : 'b'}:${e.type}`)).to.deep.equal([
          'a:X',
          'a:Y',
          'b:X',
          'a:Z',
        ]);
        const positions = all.map((e) => e.position);
        expect([...positions].sort((x, y) => x - y)).to.deep.equal(positions);
        const onlyX = await store.readAll({ fromPosition: start, filter: { eventTypes: ['X'] } });
        expect(onlyX.map((e) => e.streamName)).to.deep.equal([a, b]);
        const onlyBeta = await store.readAll({ fromPosition: start, filter: { streamPrefixes: [b] } });
        expect(onlyBeta.map((e) => e.type)).to.deep.equal(['X']);
        const two = await store.readAll({ fromPosition: start, maxCount: 2 });
        expect(two.map((e) => e.type)).to.deep.equal(['X', 'Y']);
        const afterFirst = await store.readAll({ fromPosition: two[0]!.position, maxCount: 1 });
        expect(afterFirst[0]!.position).to.equal(two[1]!.position);
      });

      it('reports the head position', async () => {
        const { position } = await store.append(newStream(), [event('A')]);
        expect(await store.headPosition()).to.equal(position);
      });
    });

    describe('subscriptions', () => {
      it('catches up from a position, then follows live appends with no gap and no duplicate', async () => {
        const start = await store.headPosition();
        const stream = newStream('sub');
        await store.append(
          stream,
          Array.from({ length: 50 }, (_, i) => event('Old', { i })),
        );
        const subscription = store.subscribeToAll({
          fromPosition: start,
          maxBatch: 7,
          filter: { streamPrefixes: [stream] },
        });
        const received = collect(subscription, 150);
        // Live appends race with the catch-up reads on purpose.
        for (let i = 0; i < 100; i += 1) await store.append(stream, [event('New', { i })]);
        const events = await received;
        expect(events.map((e) => e.streamVersion)).to.deep.equal(
          Array.from({ length: 150 }, (_, i) => i + 1),
        );
        const positions = events.map((e) => e.position);
        expect(new Set(positions).size).to.equal(150);
        expect([...positions].sort((x, y) => x - y)).to.deep.equal(positions);
        subscription.close();
      });

      it('delivers appends from concurrent writers exactly once, in position order', async () => {
        const start = await store.headPosition();
        const prefix = newStream('conc');
        const subscription = store.subscribeToAll({
          fromPosition: start,
          filter: { streamPrefixes: [prefix] },
        });
        const received = collect(subscription, 200);
        await Promise.all(
          Array.from({ length: 8 }, async (_, writer) => {
            for (let i = 0; i < 25; i += 1)
              await store.append(`${prefix}-${writer}`, [event('W', { writer, i })]);
          }),
        );
        const events = await received;
        expect(events).to.have.length(200);
        const positions = events.map((e) => e.position);
        expect([...positions].sort((x, y) => x - y)).to.deep.equal(positions);
        expect(new Set(events.map((e) => e.id)).size).to.equal(200);
        const stored = await store.readAll({ fromPosition: start, filter: { streamPrefixes: [prefix] } });
        expect(stored.map((e) => e.id)).to.deep.equal(events.map((e) => e.id));
        subscription.close();
      });

      it('follows one stream from a version and ignores other streams', async () => {
        const stream = newStream('one');
        await store.append(stream, [event('A'), event('B'), event('C')]);
        const subscription = store.subscribeToStream(stream, { fromVersion: 2 });
        const received = collect(subscription, 4);
        await store.append(newStream('other'), [event('Noise')]);
        await store.append(stream, [event('D'), event('E')]);
        const events = await received;
        expect(events.map((e) => e.type)).to.deep.equal(['B', 'C', 'D', 'E']);
        subscription.close();
      });

      it('filters by event type in the store and moves its checkpoint past the events it skips', async () => {
        const start = await store.headPosition();
        const stream = newStream('mixed');
        const rare = `Rare${Math.random().toString(36).slice(2, 8)}`;
        await store.append(stream, [
          event('Common'),
          event(rare, { n: 1 }),
          event('Common'),
          event('Common'),
        ]);
        const { position: last } = await store.append(newStream('other'), [event('Common'), event('Common')]);
        const batches: AllBatch[] = [];
        const subscription = store.subscribeToAll({ fromPosition: start, filter: { eventTypes: [rare] } });
        for await (const batch of subscription) {
          batches.push(batch);
          if (batch.checkpoint >= last) break;
        }
        subscription.close();
        const delivered = batches.flatMap((batch) => batch.events);
        expect(delivered.map((e) => e.data['n'])).to.deep.equal([1]);
        expect(batches.at(-1)!.checkpoint).to.be.at.least(last);
        const checkpoints = batches.map((batch) => batch.checkpoint);
        expect([...checkpoints].sort((x, y) => x - y)).to.deep.equal(checkpoints);
        // Resuming from the checkpoint repeats nothing, and a new matching event still arrives.
        const resumed = store.subscribeToAll({
          fromPosition: batches.at(-1)!.checkpoint,
          filter: { eventTypes: [rare] },
        });
        const next = collect(resumed, 1);
        await store.append(stream, [event('Common'), event(rare, { n: 2 })]);
        expect((await next).map((e) => e.data['n'])).to.deep.equal([2]);
        resumed.close();
      });

      it('reports the head position of the events a filter matches', async () => {
        const rare = `Head${Math.random().toString(36).slice(2, 8)}`;
        expect(await store.headPosition({ eventTypes: [rare] })).to.equal(0);
        const { position } = await store.append(newStream('h'), [event(rare)]);
        await store.append(newStream('h'), [event('Later')]);
        expect(await store.headPosition({ eventTypes: [rare] })).to.equal(position);
        expect(await store.headPosition()).to.be.greaterThan(position);
      });

      it('ends when closed or when its signal aborts', async () => {
        const subscription = store.subscribeToAll({ fromPosition: await store.headPosition() });
        const done = collect(subscription, 1);
        setTimeout(() => subscription.close(), 20);
        expect(await done).to.deep.equal([]);
        const controller = new AbortController();
        const second = collect(store.subscribeToStream(newStream('quiet'), { signal: controller.signal }), 1);
        setTimeout(() => controller.abort(), 20);
        expect(await second).to.deep.equal([]);
      });
    });

    it('reports itself healthy', async () => {
      expect(await store.health()).to.deep.equal({ healthy: true, reason: null });
    });

    describe('stream metadata and deletion', () => {
      it('stores stream metadata', async () => {
        const stream = newStream();
        await store.append(stream, [event('A')]);
        await store.setStreamMetadata(stream, { purgeAfter: '2026-12-22T00:00:00.000Z' });
        const info = await store.streamInfo(stream);
        expect(info).to.deep.equal({
          version: 1,
          deleted: false,
          metadata: { purgeAfter: '2026-12-22T00:00:00.000Z' },
        });
      });

      it('removes a deleted stream from every read and refuses further appends', async () => {
        const start = await store.headPosition();
        const doomed = newStream('doomed');
        const kept = newStream('kept');
        await store.append(doomed, [event('Secret', { text: 'the launch code' })]);
        await store.append(kept, [event('Public')]);
        await store.deleteStream(doomed);
        expect(await store.readStream(doomed)).to.deep.equal([]);
        const remaining = await store.readAll({ fromPosition: start });
        expect(remaining.map((e) => e.streamName))
          .to.include(kept)
          .and.not.to.include(doomed);
        expect(await store.streamInfo(doomed)).to.deep.include({ version: 0, deleted: true });
        await store.deleteStream(doomed); // again: nothing more happens
        await store.scrub();
        await expectRejection(store.append(doomed, [event('Again')]), StreamDeletedError);
        await expectRejection(
          store.append(doomed, [event('Again')], { expectedVersion: 'no_stream' }),
          StreamDeletedError,
        );
      });
    });
  });
}
