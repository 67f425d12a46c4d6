import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type * as EventStoreModule from '../../src/eventStore/eventStore.js';
import { WrongExpectedVersionError } from '../../src/eventStore/eventStore.js';
import { createMemoryEventStore } from '../../src/eventStore/memoryEventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { eventStoreContract } from '../contracts/eventStore.contract.js';

eventStoreContract('memory', async () => {
  const store = createMemoryEventStore();
  return { store, dispose: () => store.close() };
});

eventStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'archivist-es-'));
  const store = createSqliteEventStore({ path: join(dir, 'events.db') });
  return {
    store,
    dispose: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

eventStoreContract('sqlite, committing on the caller thread', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'archivist-es-'));
  const store = createSqliteEventStore({ path: join(dir, 'events.db'), appendThread: false });
  return {
    store,
    dispose: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('WrongExpectedVersionError', () => {
  it('is recognised by instanceof when thrown by another copy of its module', async () => {
    // A query string makes the loader evaluate the module a second time: its own class object.
    const copy = (await import(
      `../../src/eventStore/eventStore.js?copy=${Date.now()}`
    )) as typeof EventStoreModule;
    expect(copy.WrongExpectedVersionError).not.to.equal(WrongExpectedVersionError);
    const conflict = new copy.WrongExpectedVersionError('s', 'no_stream', 3);
    expect(conflict instanceof WrongExpectedVersionError).to.equal(true);
    expect(new Error('other') instanceof WrongExpectedVersionError).to.equal(false);
    expect(new copy.StreamDeletedError('s') instanceof WrongExpectedVersionError).to.equal(false);
  });
});
