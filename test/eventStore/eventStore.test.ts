import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
