import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { bulkFileDocumentId, bulkUploadJob, INGEST_BULK_JOB } from '../../src/knowledge/bulkUploadJob.js';
import { TASKS, type TaskView } from '../../src/projections/tasksProjection.js';
import { eventually } from '../support/eventually.js';
import { taskStream } from '../../src/domain/task/events.js';
import { silentLogger } from '../../src/log.js';
import { DOCUMENTS } from '../../src/projections/knowledgeProjection.js';
import type { JobContext } from '../../src/workers/jobs.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

/**
 * A bulk upload is one task: an attempt killed after storing some of its files is run again, and
 * the resumed attempt must own what its predecessor stored, not store it twice nor call it a
 * duplicate; a task that does not complete answers with what it had stored.
 */
describe("a bulk upload's one task", function () {
  this.timeout(30_000);
  let app: TestApp;
  beforeEach(async () => {
    // No worker runs here: the test runs the job's attempts itself, and tasks stay where it puts them.
    app = await startTestApp({ roles: ['api', 'projector'] });
  });
  afterEach(async () => app.stop());

  const zipLimits = { maxEntries: 10, maxTotalBytes: 1e6, maxEntryBytes: 1e6, maxRatio: 100 };

  async function attempt(taskId: string, input: Record<string, unknown>, attemptNumber: number) {
    const job = bulkUploadJob({
      ingest: app.runtime.knowledge.ingest,
      blobs: app.runtime.knowledge.blobs,
      zipLimits,
    });
    expect(job.name).to.equal(INGEST_BULK_JOB);
    const progress: number[] = [];
    const context: JobContext = {
      taskId,
      input,
      attempt: attemptNumber,
      resumeFrom: 0,
      signal: AbortSignal.timeout(20_000),
      progress: async (fraction) => {
        progress.push(fraction);
      },
      log: silentLogger,
    };
    return { result: (await job.run(context))!, progress };
  }

  it('stores each file once across a resumed attempt, and reports the same documents', async () => {
    const words = ['otter', 'heron', 'lynx'];
    const files = await Promise.all(
      words.map(async (word) => ({
        blob: await app.runtime.knowledge.blobs.put(
          Buffer.from(`# ${word}\n\nThe ${word} survey is on Monday.\n`),
        ),
        fileName: `${word}.md`,
        source: `bulk/${word}.md`,
      })),
    );
    const input = {
      files,
      section: 'bulk',
      collection: 'default',
      skipDuplicates: true,
      actorId: 'tester',
      correlationId: 'c',
    };
    const taskId = randomUUID();
    const first = await attempt(taskId, input, 1);
    expect(first.result).to.include({ total_files: 3, successful: 3, failed: 0, duplicates: 0 });
    expect(first.progress.at(-1)).to.equal(1);
    const documentIds = (first.result['results'] as Array<{ doc_id: string }>).map((result) => result.doc_id);
    expect(new Set(documentIds).size).to.equal(3);

    // The worker died before recording the outcome: the next attempt runs the same task again.
    const second = await attempt(taskId, input, 2);
    expect(second.result).to.include({ total_files: 3, successful: 3, failed: 0, duplicates: 0 });
    expect(
      (second.result['results'] as Array<{ doc_id: string }>).map((result) => result.doc_id),
    ).to.deep.equal(documentIds);
    await app.runtime.projections.waitFor(await app.runtime.eventStore.headPosition());
    expect(
      await app.runtime.readModels.count(DOCUMENTS, { source: { $in: files.map((f) => f.source) } }),
    ).to.equal(3);
  });

  it('reports a file whose bytes are gone as failed, and ingests the others', async () => {
    const kept = await app.runtime.knowledge.blobs.put(Buffer.from('# Kept\n\nThe kept note.\n'));
    const gone = await app.runtime.knowledge.blobs.put(Buffer.from('# Gone\n\nThe gone note.\n'));
    await app.runtime.knowledge.blobs.delete(gone);
    const { result } = await attempt(
      randomUUID(),
      {
        files: [
          { blob: gone, fileName: 'gone.md', source: 'bulk/gone.md' },
          { blob: kept, fileName: 'kept.md', source: 'bulk/kept.md' },
        ],
        section: 'bulk',
        skipDuplicates: true,
        actorId: 'tester',
        correlationId: 'c',
      },
      1,
    );
    expect(result).to.include({ total_files: 2, successful: 1, failed: 1 });
    expect(
      (result['results'] as Array<{ filename: string; success: boolean }>).map((r) => [
        r.filename,
        r.success,
      ]),
    ).to.deep.equal([
      ['gone.md', false],
      ['kept.md', true],
    ]);
  });

  it('answers a bulk upload whose task was cancelled with the files it had stored, and the rest failed', async () => {
    const files = ['stored', 'never'].map((word) => ({
      name: `cancel-${word}.md`,
      bytes: Buffer.from(`# ${word}\n\nThe ${word} note of the cancelled upload.\n`),
    }));
    let request = app.http.post('/api/v1/upload/bulk').field('section', 'cancelled');
    for (const file of files) request = request.attach('files', file.bytes, file.name);
    // No worker runs here: the request waits for its task, which the test plays by hand.
    const answer = request.then((response) => response);
    const task = await eventually(
      async () =>
        (await app.runtime.readModels.find<TaskView>(TASKS, { filter: { jobType: INGEST_BULK_JOB } }))[0],
      10_000,
      'the bulk task',
    );
    // An attempt that stored the first file, then the task is cancelled before the second.
    const [created] = await app.runtime.eventStore.readStream(taskStream(task.id), { maxCount: 1 });
    const input = created!.data['input'] as {
      files: Array<{ blob: string; source: string; fileName: string }>;
    };
    const first = input.files[0]!;
    const stored = await app.runtime.knowledge.ingest({
      fileName: first.fileName,
      bytes: await app.runtime.knowledge.blobs.get(first.blob),
      source: first.source,
      sourceKind: 'upload',
      section: 'cancelled',
      skipDuplicates: true,
      caller: { actorId: 'tester', correlationId: 'c' },
      signal: AbortSignal.timeout(20_000),
      taskId: task.id,
      docId: bulkFileDocumentId(task.id, 0),
    });
    expect(stored).to.include({ success: true });
    await app.runtime.tasks.execute(
      'CancelTask',
      { taskId: task.id, reason: 'changed my mind' },
      { actorId: 'tester', correlationId: 'c' },
    );
    const response = await answer;
    expect(response.status).to.equal(200);
    expect(response.body).to.include({ total_files: 2, successful: 1, failed: 1 });
    const [kept, lost] = response.body.results as Array<Record<string, unknown>>;
    expect(kept).to.include({
      filename: 'cancel-stored.md',
      success: true,
      doc_id: bulkFileDocumentId(task.id, 0),
      chunks_added: stored.chunksAdded,
    });
    expect(lost).to.include({ filename: 'cancel-never.md', success: false });
    expect(String(lost!['error'])).to.match(/cancel/);
  });
});
