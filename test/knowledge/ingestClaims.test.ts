import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { reserve } from '../../src/commands/reservation.js';
import { createIngestor, SOURCE_RESERVATION, sha256, type IngestInput } from '../../src/knowledge/ingest.js';
import { holderOf } from '../../src/commands/reservation.js';
import { metadataFor } from '../../src/commands/context.js';
import { createReadStoreEmbeddingCache } from '../../src/knowledge/embeddingCache.js';
import { taskAttemptLease } from '../../src/workers/jobs.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { createTask } from '../../src/commands/newTask.js';

/**
 * The failure this guards against: an ingestion whose worker was killed after it had claimed its
 * source left the claim to a random document id; the resumed attempt took a new id, found the claim
 * held by a document that never came, and waited a hard-coded 15 minutes, its progress stuck at
 * "parsing".
 */
describe("ingestion claims of a dead or resumed task's predecessor", function () {
  this.timeout(30_000);
  let app: TestApp;
  const caller = { actorId: 'tester', correlationId: 'c' };
  beforeEach(async () => {
    // No job type runs here: tasks stay where the test puts them.
    app = await startTestApp({ env: { TASK_HEARTBEAT_MS: '100' } });
  });
  afterEach(async () => app.stop());

  const input = (source: string, more: Partial<IngestInput>): IngestInput => ({
    fileName: 'notes.md',
    bytes: Buffer.from(`# Notes ${source}\n\nThe river bank needs volunteers on Saturday.`),
    source,
    sourceKind: 'upload',
    section: 'general',
    skipDuplicates: true,
    caller,
    signal: AbortSignal.timeout(60_000),
    ...more,
  });
  /** What a killed attempt of `taskId` left: its claim on the source, under the task's document id. */
  const claimAsPredecessor = (source: string, taskId: string, holder = taskId) =>
    reserve(app.runtime.eventStore, SOURCE_RESERVATION, sha256(source), holder, {
      now: new Date().toISOString(),
      actorId: caller.actorId,
      correlationId: caller.correlationId,
      causationId: `task:${taskId}`,
    });

  it('a resumed attempt owns the claim its predecessor made, and stores the document at once', async () => {
    const taskId = randomUUID();
    await claimAsPredecessor('general/resumed.md', taskId);
    const outcome = await app.runtime.knowledge.ingest(
      input('general/resumed.md', { taskId, docId: taskId }),
    );
    expect(outcome).to.include({ success: true, docId: taskId, isDuplicate: false });
  });

  it('takes over the claim of another task whose worker is gone, without waiting for a timeout of minutes', async () => {
    const { taskId: dead } = await createTask(app.runtime.tasks, 'nobody-runs-this', {}, caller);
    await app.runtime.tasks.execute(
      'BeginAttempt',
      { taskId: dead, workerId: 'killed', maxAttempts: 3, resumable: true },
      caller,
    );
    await app.runtime.projections.waitFor(await app.runtime.eventStore.headPosition());
    await claimAsPredecessor('general/taken-over.md', dead);
    // The dead task's worker holds no attempt lease: nothing can finish the claim.
    const taskId = randomUUID();
    const outcome = await app.runtime.knowledge.ingest(
      input('general/taken-over.md', { taskId, docId: taskId }),
    );
    expect(outcome).to.include({ success: true, docId: taskId });
  });

  it('waits for another live task holding the claim, says so, and goes on once that task has ended', async () => {
    const { taskId: live } = await createTask(app.runtime.tasks, 'nobody-runs-this', {}, caller);
    await app.runtime.tasks.execute(
      'BeginAttempt',
      { taskId: live, workerId: 'alive', maxAttempts: 3, resumable: true },
      caller,
    );
    await app.runtime.readStore.acquireLease(taskAttemptLease(live), 'alive', 60_000);
    await app.runtime.projections.waitFor(await app.runtime.eventStore.headPosition());
    await claimAsPredecessor('general/waited.md', live);
    const said: string[] = [];
    const taskId = randomUUID();
    const outcome = app.runtime.knowledge.ingest(
      input('general/waited.md', {
        taskId,
        docId: taskId,
        async onWait(message) {
          said.push(message);
          // The holder fails (its input was bad): its claim is free to take.
          await app.runtime.tasks.execute(
            'FailTask',
            { taskId: live, attempt: 1, reason: 'job_error', error: 'broken' },
            caller,
          );
        },
      }),
    );
    expect(await outcome).to.include({ success: true, docId: taskId });
    expect(said).to.deep.equal([`waiting for ingestion ${live} of the same source to finish`]);
  });

  it('does not take over the claim of a task that stored its document just after the first look', async () => {
    const source = `general/raced-${randomUUID()}.md`;
    const holder = randomUUID();
    const real = app.runtime.knowledge.documents;
    let holderStores = true;
    const ingestor = createIngestor({
      parser: app.runtime.parser,
      eventStore: app.runtime.eventStore,
      embedder: app.runtime.knowledge.embedder,
      embeddings: createReadStoreEmbeddingCache(app.runtime.readStore),
      maxInputBytes: 10_000_000,
      newId: randomUUID,
      metadata: (who) => metadataFor(who, () => new Date()),
      clock: () => new Date(),
      // The holder's task has ended (its lease given back, the read model not yet saying so).
      taskAlive: async () => false,
      documents: {
        execute: real.execute,
        async read(id) {
          const before = await real.read(id);
          if (id === holder && holderStores) {
            // Between this look and the next, the holder stores its document and ends.
            holderStores = false;
            expect(await ingestor(input(source, { taskId: holder, docId: holder }))).to.include({
              success: true,
              docId: holder,
            });
          }
          return before;
        },
      },
    });
    await claimAsPredecessor(source, holder);
    const outcome = await ingestor(input(source, { taskId: randomUUID() }));
    expect(outcome).to.include({ isDuplicate: true, duplicateType: 'filepath', existingDocId: holder });
    expect(await holderOf(app.runtime.eventStore, SOURCE_RESERVATION, sha256(source))).to.equal(holder);
  });
});
