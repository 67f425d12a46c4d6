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
  it('skips to its head when every position after the cursor is known and none matches', () => {
    const journal = createAppendJournal();
    journal.record(1, 'TaskCreated', 'task-1');
    journal.record(2, 'TaskStarted', 'task-1');
    journal.record(3, 'ChunkStored', 'document-1');
    expect(journal.skipTo(0, { eventTypes: ['ConversationCreated'] })).to.equal(3);
    expect(journal.skipTo(1, { eventTypes: ['TaskCreated'] })).to.equal(3);
    expect(journal.skipTo(0, { eventTypes: ['TaskCreated'] })).to.equal(null);
    expect(journal.skipTo(0, { eventTypes: ['ChunkStored'], streamPrefixes: ['task-'] })).to.equal(3);
    expect(journal.skipTo(0, { eventTypes: ['ChunkStored'], streamPrefixes: ['document-'] })).to.equal(null);
  });

  it('reads the log when a position is missing (another writer), at its head, or forgotten', () => {
    const journal = createAppendJournal(3);
    journal.record(5, 'A', 's');
    journal.record(7, 'A', 's');
    expect(journal.skipTo(4, { eventTypes: ['B'] })).to.equal(null);
    expect(journal.skipTo(6, { eventTypes: ['B'] })).to.equal(7);
    expect(journal.skipTo(7, { eventTypes: ['B'] })).to.equal(null);
    journal.record(8, 'A', 's');
    journal.record(9, 'A', 's');
    journal.record(10, 'A', 's');
    // Capacity 3: 5 and 7 are forgotten.
    expect(journal.skipTo(6, { eventTypes: ['B'] })).to.equal(null);
    expect(journal.skipTo(7, { eventTypes: ['B'] })).to.equal(10);
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
