import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { BlobMissingError } from '../../src/blobStore/blobStore.js';
import { createFileBlobStore } from '../../src/blobStore/fileBlobStore.js';
import { taskAggregate, type TaskCommands } from '../../src/commands/aggregates.js';
import { createCommandService } from '../../src/commands/commandService.js';
import { createMemoryEventStore } from '../../src/eventStore/memoryEventStore.js';
import { blobReleaseReactor } from '../../src/knowledge/blobReleaseReactor.js';
import { INGEST_BULK_JOB } from '../../src/knowledge/bulkUploadJob.js';
import { INGEST_UPLOAD_JOB } from '../../src/knowledge/ingestJobs.js';
import { silentLogger } from '../../src/log.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';
import { createReactorRunner } from '../../src/workers/reactors.js';
import { expectRejection } from '../support/expectRejection.js';
import { createTask } from '../../src/commands/newTask.js';

describe("an upload's bytes (a file's, a bulk upload's, an archive's) are deleted when its task ends, however it ends", () => {
  const caller = { actorId: 'tester', correlationId: 'c' };
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'archivist-blob-release-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function scenario(end: (tasks: TaskCommands, taskId: string) => Promise<void>) {
    const eventStore = createMemoryEventStore();
    const readStore = createSqliteReadStore({ path: ':memory:' });
    const blobs = createFileBlobStore(dir);
    const tasks = createCommandService(taskAggregate, { eventStore, clock: () => new Date() });
    const runner = createReactorRunner({
      eventStore,
      readStore,
      reactors: [blobReleaseReactor({ eventStore, blobs })],
      owner: 'test',
      log: silentLogger,
      idleFlushMs: 20,
    });
    await runner.start();
    try {
      const kept = await blobs.put(new Uint8Array([1, 2, 3]));
      const [blob, first, second, archive] = await Promise.all(
        [4, 5, 6, 7].map((byte) => blobs.put(new Uint8Array([byte]))),
      );
      const uploads = [
        await createTask(tasks, INGEST_UPLOAD_JOB, { blob, fileName: 'a.txt' }, caller),
        await createTask(
          tasks,
          INGEST_BULK_JOB,
          { files: [first, second].map((name, at) => ({ blob: name, fileName: `${at}.md`, source: 'x' })) },
          caller,
        ),
        await createTask(tasks, INGEST_BULK_JOB, { archive }, caller),
      ];
      // Another job type's task naming the other blob in its input: not an upload, not touched.
      const other = await createTask(tasks, 'scrape_urls', { blob: kept, archive: kept }, caller);
      await end(tasks, other.taskId);
      for (const { taskId } of uploads) await end(tasks, taskId);
      expect(await runner.waitFor(await eventStore.headPosition(), 10_000)).to.equal(true);
      for (const released of [blob, first, second, archive])
        await expectRejection(blobs.get(released!), BlobMissingError);
      expect([...(await blobs.get(kept))]).to.deep.equal([1, 2, 3]);
    } finally {
      await runner.stop();
      await readStore.close();
      await blobs.close();
    }
  }

  it('failed by the watchdog after its worker was lost', async () => {
    await scenario(async (tasks, taskId) => {
      await tasks.execute(
        'BeginAttempt',
        { taskId, workerId: 'w1', maxAttempts: 3, resumable: true },
        caller,
      );
      await tasks.execute(
        'FailTask',
        { taskId, attempt: null, reason: 'worker_lost', error: 'no worker holds attempt 1' },
        { actorId: 'system:watchdog', correlationId: 'watchdog' },
      );
    });
  });

  it('cancelled before any worker took it', async () => {
    await scenario(async (tasks, taskId) => {
      await tasks.execute('CancelTask', { taskId, reason: null }, caller);
    });
  });
});
