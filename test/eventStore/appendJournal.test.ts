import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createAppendJournal } from '../../src/eventStore/appendJournal.js';
import type { AllBatch } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { eventually } from '../support/eventually.js';

const metadata = { now: '2026-11-27T05:00:00.000Z', actorId: 'tester', correlationId: 'corr' };

describe("event store's append journal", () => {
  const row = (position: number, type: string, stream: string, data: Record<string, unknown> = {}) => ({
    position,
    stream,
    version: position,
    event_id: `e${position}`,
    type,
    data: JSON.stringify(data),
    metadata: JSON.stringify(metadata),
    recorded_at: metadata.now,
  });
  const positions = (batch: AllBatch | null) =>
    batch && { positions: batch.events.map((event) => event.position), checkpoint: batch.checkpoint };

  it('moves past events of other types to its head when it holds every position after the cursor', () => {
    const journal = createAppendJournal();
    journal.record(row(1, 'TaskCreated', 'task-1'));
    journal.record(row(2, 'TaskStarted', 'task-1'));
    journal.record(row(3, 'ChunkStored', 'document-1'));
    expect(positions(journal.readAfter(0, 10, { eventTypes: ['ConversationCreated'] }))).to.deep.equal({
      positions: [],
      checkpoint: 3,
    });
    expect(positions(journal.readAfter(1, 10, { eventTypes: ['TaskCreated'] }))).to.deep.equal({
      positions: [],
      checkpoint: 3,
    });
    expect(
      positions(journal.readAfter(0, 10, { eventTypes: ['ChunkStored'], streamPrefixes: ['task-'] })),
    ).to.deep.equal({ positions: [], checkpoint: 3 });
  });

  it('hands over the matching events as the log holds them, at most maxCount, parsed once and frozen', () => {
    const journal = createAppendJournal();
    journal.record(row(1, 'TaskCreated', 'task-1', { taskId: 't1' }));
    journal.record(row(2, 'ChunkStored', 'document-1', { text: 'first' }));
    journal.record(row(3, 'TaskCreated', 'task-2', { taskId: 't2' }));
    const batch = journal.readAfter(0, 10, { eventTypes: ['TaskCreated'] })!;
    expect(batch.checkpoint).to.equal(3);
    expect(batch.events).to.deep.equal([
      {
        id: 'e1',
        type: 'TaskCreated',
        data: { taskId: 't1' },
        metadata,
        streamName: 'task-1',
        streamVersion: 1,
        position: 1,
        recordedAt: metadata.now,
      },
      {
        id: 'e3',
        type: 'TaskCreated',
        data: { taskId: 't2' },
        metadata,
        streamName: 'task-2',
        streamVersion: 3,
        position: 3,
        recordedAt: metadata.now,
      },
    ]);
    // A page of one ends at the event it holds.
    expect(positions(journal.readAfter(0, 1, { eventTypes: ['TaskCreated'] }))).to.deep.equal({
      positions: [1],
      checkpoint: 1,
    });
    // Every subscriber gets the same parse, which none of them can change for the others.
    const again = journal.readAfter(2, 10, undefined)!;
    expect(again.events[0]).to.equal(batch.events[1]);
    expect(() => {
      (again.events[0]!.data as Record<string, unknown>)['taskId'] = 'changed';
    }).to.throw(TypeError);
    expect(Object.isFrozen(again.events[0]!.metadata)).to.equal(true);
  });

  it('reads the log when a position is missing (another writer), at its head, or forgotten', () => {
    const journal = createAppendJournal(3);
    journal.record(row(5, 'A', 's'));
    journal.record(row(7, 'A', 's'));
    expect(journal.readAfter(4, 10, { eventTypes: ['B'] })).to.equal(null);
    expect(positions(journal.readAfter(6, 10, { eventTypes: ['B'] }))).to.deep.equal({
      positions: [],
      checkpoint: 7,
    });
    expect(journal.readAfter(7, 10, { eventTypes: ['B'] })).to.equal(null);
    journal.record(row(8, 'A', 's'));
    journal.record(row(9, 'A', 's'));
    journal.record(row(10, 'A', 's'));
    // Capacity 3: 5 and 7 are forgotten.
    expect(journal.readAfter(6, 10, { eventTypes: ['B'] })).to.equal(null);
    expect(positions(journal.readAfter(7, 10, { eventTypes: ['A'] }))).to.deep.equal({
      positions: [8, 9, 10],
      checkpoint: 10,
    });
  });

  it('keeps only the type and stream of events over its byte budget: they can be skipped, not served', () => {
    const big = 'x'.repeat(600);
    const journal = createAppendJournal(100, 2_000);
    for (let position = 1; position <= 5; position += 1)
      journal.record(row(position, position === 1 ? 'Big' : 'Small', 's', { big }));
    expect(journal.readAfter(0, 10, { eventTypes: ['Big'] })).to.equal(null);
    expect(positions(journal.readAfter(0, 10, { eventTypes: ['Other'] }))).to.deep.equal({
      positions: [],
      checkpoint: 5,
    });
    expect(positions(journal.readAfter(3, 10, { eventTypes: ['Small'] }))).to.deep.equal({
      positions: [4, 5],
      checkpoint: 5,
    });
  });

  it("forgets a deleted stream's events, so its content is read from the log (which no longer has it)", () => {
    const journal = createAppendJournal();
    journal.record(row(1, 'MessageAppended', 'conversation-1', { text: 'secret' }));
    journal.record(row(2, 'MessageAppended', 'conversation-2', { text: 'kept' }));
    journal.forget('conversation-1');
    expect(journal.readAfter(0, 10, { eventTypes: ['MessageAppended'] })).to.equal(null);
    expect(positions(journal.readAfter(1, 10, { eventTypes: ['MessageAppended'] }))).to.deep.equal({
      positions: [2],
      checkpoint: 2,
    });
  });

  it("lets a filtered subscription see another process's event between this process's appends", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'archivist-journal-'));
    const path = join(dir, 'events.db');
    const here = createSqliteEventStore({ path, pollIntervalMs: 20 });
    const other = createSqliteEventStore({ path });
    try {
      await here.append('s-1', [{ type: 'Mine', data: {}, metadata }]);
      await other.append('s-2', [{ type: 'Theirs', data: { n: 1 }, metadata }]);
      await here.append('s-3', [{ type: 'Mine', data: {}, metadata }]);
      const seen: number[] = [];
      const subscription = here.subscribeToAll({ filter: { eventTypes: ['Theirs'] } });
      const reading = (async () => {
        for await (const batch of subscription as AsyncIterable<AllBatch>) {
          for (const event of batch.events) seen.push(Number(event.data['n']));
        }
      })();
      await eventually(async () => (seen.length === 1 ? true : undefined), 5_000, 'their first event');
      await other.append('s-2', [{ type: 'Theirs', data: { n: 2 }, metadata }]);
      await here.append('s-3', [{ type: 'Mine', data: {}, metadata }]);
      await eventually(async () => (seen.length === 2 ? true : undefined), 5_000, 'their second event');
      expect(seen).to.deep.equal([1, 2]);
      subscription.close();
      await reading;
    } finally {
      await here.close();
      await other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
