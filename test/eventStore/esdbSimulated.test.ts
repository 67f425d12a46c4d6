import { Readable } from 'node:stream';
import { expect } from 'chai';
import type { Metadata } from '../../src/domain/shared/index.js';
import type { EsdbClient } from '../../src/eventStore/esdbClient.js';
import { createEsdbEventStoreOnClient } from '../../src/eventStore/esdbEventStore.js';
import type { EventToAppend } from '../../src/eventStore/eventStore.js';
import { EventStoreUnavailableError, StreamDeletedError } from '../../src/eventStore/eventStore.js';
import { collect, eventStoreContract } from '../contracts/eventStore.contract.js';
import { eventually } from '../support/eventually.js';
import { expectRejection } from '../support/expectRejection.js';
import { createSimulatedEsdb } from './esdbSimulatedServer.js';

/*
 * The adapter against a simulated EventStoreDB client (see esdbSimulatedServer.ts): no server can be
 * had on these machines, so this runs the unchanged contract suite and the outage behaviour against
 * a stand-in that follows the server's documented semantics. esdbEventStore.int.test.ts runs the
 * same contract against a real server when EVENTSTORE_URL is set.
 */

eventStoreContract('esdb adapter on a simulated EventStoreDB (system events interleaved)', async () => {
  const server = createSimulatedEsdb({ systemEventEvery: 3 });
  const store = createEsdbEventStoreOnClient(server.client, { startScavenge: null });
  return { store, dispose: () => store.close() };
});

const metadata: Metadata = { now: '2026-11-22T10:00:00.000Z', actorId: 'tester', correlationId: 'corr-1' };
const event = (type: string, data: Record<string, unknown> = {}): EventToAppend => ({ type, data, metadata });

describe('EventStoreDB adapter on a simulated server', () => {
  it('fails fast as unavailable while the server is down, says why, and recovers by itself', async () => {
    const server = createSimulatedEsdb();
    const store = createEsdbEventStoreOnClient(server.client, { startScavenge: null });
    await store.append('task-1', [event('A')]);
    server.setDown(true);
    await expectRejection(store.append('task-1', [event('B')]), EventStoreUnavailableError);
    await expectRejection(store.readStream('task-1'), EventStoreUnavailableError);
    await expectRejection(store.readAll(), EventStoreUnavailableError);
    await expectRejection(store.headPosition(), EventStoreUnavailableError);
    const health = await store.health();
    expect(health.healthy).to.equal(false);
    expect(health.reason).to.match(/^EventStoreDB unavailable: .*UNAVAILABLE/);
    server.setDown(false);
    expect(await store.health()).to.deep.equal({ healthy: true, reason: null });
    await store.append('task-1', [event('B')], { expectedVersion: 1 });
    expect((await store.readStream('task-1')).map((e) => e.type)).to.deep.equal(['A', 'B']);
    await store.close();
  });

  it('resumes its subscriptions after an outage with no gap and no duplicate', async () => {
    const server = createSimulatedEsdb({ systemEventEvery: 2 });
    const store = createEsdbEventStoreOnClient(server.client, { startScavenge: null });
    const all = store.subscribeToAll({ filter: { streamPrefixes: ['job-'] }, maxBatch: 3 });
    const one = store.subscribeToStream('job-1');
    const receivedAll = collect(all, 20);
    const receivedOne = collect(one, 10);
    for (let i = 0; i < 5; i += 1) {
      await store.append('job-1', [event('Step', { i })]);
      await store.append('job-2', [event('Step', { i })]);
    }
    server.setDown(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    server.setDown(false);
    for (let i = 5; i < 10; i += 1) {
      await store.append('job-1', [event('Step', { i })]);
      await store.append('job-2', [event('Step', { i })]);
    }
    const events = await receivedAll;
    expect(events.map((e) => `${e.streamName}:${e.data['i']}`)).to.deep.equal(
      Array.from({ length: 10 }, (_, i) => [`job-1:${i}`, `job-2:${i}`]).flat(),
    );
    expect((await receivedOne).map((e) => e.streamVersion)).to.deep.equal(
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
    await store.close();
  });

  it("hides another process's deletion from $all once its cache time has passed, also after a scavenge", async () => {
    const server = createSimulatedEsdb();
    const writer = createEsdbEventStoreOnClient(server.client, { startScavenge: null });
    const reader = createEsdbEventStoreOnClient(server.client, {
      startScavenge: null,
      liveStreamCacheMs: 30,
    });
    await writer.append('doc-1', [event('Secret')]);
    await writer.append('doc-2', [event('Public')]);
    await writer.append('doc-1', [event('Secret')]);
    expect((await reader.readAll()).map((e) => e.streamName)).to.deep.equal(['doc-1', 'doc-2', 'doc-1']);
    const [, publicEvent] = await reader.readAll();
    await writer.deleteStream('doc-1');
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect((await reader.readAll()).map((e) => e.streamName)).to.deep.equal(['doc-2']);
    // The newest event belongs to the deleted stream: the head is the newest one still readable.
    expect(await reader.headPosition()).to.equal(publicEvent!.position);
    server.scavenge();
    expect((await reader.readAll()).map((e) => e.streamName)).to.deep.equal(['doc-2']);
    expect(await reader.readAll({ fromPosition: publicEvent!.position })).to.deep.equal([]);
    await writer.deleteStream('doc-1');
    await writer.close();
    await reader.close();
  });

  it('keeps caller ids that are not UUIDs and server metadata set by an operator', async () => {
    const server = createSimulatedEsdb();
    const store = createEsdbEventStoreOnClient(server.client, { startScavenge: null });
    await store.append('task-9', [{ id: 'task-9-created', type: 'TaskCreated', data: {}, metadata }]);
    const [stored] = await store.readStream('task-9');
    expect(stored).to.deep.include({ id: 'task-9-created', metadata });
    await server.client.appendToStream(
      '$$task-9',
      [
        {
          id: crypto.randomUUID(),
          contentType: 'application/json',
          type: '$metadata',
          data: { $maxAge: 60 },
          metadata: undefined,
        },
      ],
      { expectedRevision: 'any' },
    );
    await store.setStreamMetadata('task-9', { purgeAfter: '2027-01-01' });
    await store.setStreamMetadata('task-9', { purgeAfter: '2027-02-01', maxCount: 5 });
    const raw = server
      .records()
      .filter((r) => r.streamId === '$$task-9')
      .at(-1)!;
    expect(raw.data).to.deep.equal({ $maxAge: 60, archivist: { purgeAfter: '2027-02-01', maxCount: 5 } });
    expect((await store.streamInfo('task-9')).metadata).to.deep.equal({
      purgeAfter: '2027-02-01',
      maxCount: 5,
    });
    await store.close();
  });

  it('ends a stream subscription when the stream is deleted, and deletes idempotently', async () => {
    const server = createSimulatedEsdb();
    const store = createEsdbEventStoreOnClient(server.client, { startScavenge: null });
    await store.append('conv-1', [event('A')]);
    const received = collect(store.subscribeToStream('conv-1'), 100);
    await store.append('conv-1', [event('B')]);
    await store.deleteStream('conv-1');
    await store.deleteStream('conv-1');
    expect((await received).map((e) => e.type)).to.deep.equal(['A', 'B']);
    await expectRejection(store.append('conv-1', []), StreamDeletedError);
    await store.close();
  });

  it('requests a scavenge after deletions, and ends all subscriptions on close', async () => {
    const server = createSimulatedEsdb();
    let scavenges = 0;
    const store = createEsdbEventStoreOnClient(server.client, {
      scavengeDelayMs: 10,
      startScavenge: async () => {
        scavenges += 1;
        return { scavengeId: 's-1' };
      },
    });
    await store.deleteStream('a');
    await store.deleteStream('b');
    await store.scrub();
    await store.scrub();
    await eventually(() => (scavenges === 1 ? true : undefined), 2_000);
    const open = [collect(store.subscribeToAll(), 10), collect(store.subscribeToStream('x'), 10)];
    await eventually(() => (server.openSubscriptions() === 2 ? true : undefined), 2_000);
    await store.close();
    expect(await Promise.all(open)).to.deep.equal([[], []]);
    expect(server.openSubscriptions()).to.equal(0);
    await expectRejection(store.readAll(), EventStoreUnavailableError);
  });

  it('fails a call that gets no answer within the request timeout', async () => {
    const silent = (): Readable & { cancel(): Promise<void> } =>
      Object.assign(new Readable({ objectMode: true, read() {} }), { cancel: async () => undefined });
    const never = (): Promise<never> => new Promise(() => undefined);
    const client = {
      readAll: silent,
      readStream: silent,
      appendToStream: never,
      tombstoneStream: never,
      dispose: async () => undefined,
    } as unknown as EsdbClient;
    const store = createEsdbEventStoreOnClient(client, { startScavenge: null, requestTimeoutMs: 30 });
    for (const call of [
      () => store.readAll(),
      () => store.readStream('s'),
      () => store.append('s', [event('A')]),
      () => store.deleteStream('s'),
    ]) {
      const error = await expectRejection(call(), EventStoreUnavailableError);
      expect(error.message).to.equal('EventStoreDB unavailable: no answer within 30 ms');
    }
    expect((await store.health()).reason).to.include('no answer within 30 ms');
    await store.close();
  });
});
