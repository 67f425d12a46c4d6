import { expect } from 'chai';
import { release, reserve } from '../../src/commands/reservation.js';
import { createMemoryEventStore } from '../../src/eventStore/memoryEventStore.js';

const metadata = { now: '2026-11-22T10:00:00.000Z', actorId: 'test', correlationId: 'c' };

describe('uniqueness reservations', () => {
  it('lets exactly one of many concurrent claims win, and tells the others who holds the key', async () => {
    const store = createMemoryEventStore();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        reserve(store, 'url', 'https://example.org/a', `doc-${i}`, metadata),
      ),
    );
    const winners = outcomes.filter((outcome) => outcome.reserved);
    expect(winners).to.have.length(1);
    const holders = new Set(outcomes.flatMap((outcome) => (outcome.reserved ? [] : [outcome.holder])));
    expect(holders.size).to.equal(1);
    expect([...holders][0]).to.match(/^doc-\d$/);
  });

  it('frees a released key so it can be claimed again, repeatedly', async () => {
    const store = createMemoryEventStore();
    expect(await reserve(store, 'hash', 'abc', 'doc-1', metadata)).to.deep.equal({ reserved: true });
    expect(await reserve(store, 'hash', 'abc', 'doc-2', metadata)).to.deep.equal({
      reserved: false,
      holder: 'doc-1',
      since: metadata.now,
      cause: null,
    });
    await release(store, 'hash', 'abc', metadata);
    await release(store, 'hash', 'abc', metadata);
    expect(await reserve(store, 'hash', 'abc', 'doc-2', metadata)).to.deep.equal({ reserved: true });
    await release(store, 'hash', 'abc', metadata);
    expect(await reserve(store, 'hash', 'abc', 'doc-3', metadata)).to.deep.equal({ reserved: true });
    const events = await store.readStream('reservation-hash-abc');
    expect(events.map((event) => event.type)).to.deep.equal([
      'KeyReserved',
      'KeyReleased',
      'KeyReserved',
      'KeyReleased',
      'KeyReserved',
    ]);
  });

  it('lets one of several claims on a released key win', async () => {
    const store = createMemoryEventStore();
    await reserve(store, 'path', 'a.pdf', 'old', metadata);
    await release(store, 'path', 'a.pdf', metadata);
    const outcomes = await Promise.all(
      ['x', 'y', 'z'].map((holder) => reserve(store, 'path', 'a.pdf', holder, metadata)),
    );
    expect(outcomes.filter((outcome) => outcome.reserved)).to.have.length(1);
  });
});
