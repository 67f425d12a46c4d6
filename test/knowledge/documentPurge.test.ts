import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { KNOWLEDGE } from '../../src/projections/knowledgeProjection.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { filesContaining } from '../support/filesContaining.js';
import { eventually, startTestApp } from '../support/testApp.js';

describe('deleting a document', function () {
  this.timeout(60_000);
  let dir: string;
  const caller = { actorId: 'user-1', correlationId: 'c' };
  const open = (): Promise<Runtime> =>
    createRuntime(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', SCRUB_DELAY_MS: '20' }), {
      log: silentLogger,
    });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'archivist-docpurge-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function ingest(runtime: Runtime, fileName: string, text: string): Promise<string> {
    const outcome = await runtime.knowledge.ingest({
      fileName,
      bytes: Buffer.from(text),
      source: `notes/${fileName}`,
      sourceKind: 'upload',
      section: 'notes',
      skipDuplicates: true,
      caller,
      signal: new AbortController().signal,
    });
    expect(outcome.success, outcome.error ?? '').to.equal(true);
    return outcome.docId!;
  }

  async function settle(runtime: Runtime): Promise<void> {
    const head = await runtime.eventStore.headPosition();
    expect(await runtime.reactors.waitFor(head, 10_000)).to.equal(true);
    expect(await runtime.projections.waitFor(head, { timeoutMs: 10_000 })).to.equal(true);
    expect(await runtime.knowledge.waitForVectors(head, 10_000)).to.equal(true);
    await runtime.scrubber.idle();
  }

  it('leaves nothing of its text in any file under DATA_DIR, after a restart and a rebuild too', async () => {
    const marker = `zqmarker${Math.random().toString(36).slice(2, 12)}`;
    const paragraph = (word: string) =>
      `# Field notes\n\nThe survey team measured ${word} along the northern bank of the river.\n\n` +
      `Every reading of ${word} was checked twice before it was written down.\n`;
    let runtime = await open();
    await runtime.start();
    await ingest(runtime, 'keep.md', paragraph('keepsakeword1234'));
    const docId = await ingest(runtime, 'doomed.md', paragraph(marker));
    await settle(runtime);
    expect(filesContaining(dir, marker)).to.not.deep.equal([]);
    const found = await runtime.knowledge.search({ query: marker, topK: 5, initialK: 20 });
    expect(found.hits.map((hit) => hit.document.id)).to.include(docId);

    await runtime.knowledge.documents.execute('DeleteDocument', { docId }, caller);
    await settle(runtime);
    const after = await runtime.knowledge.search({ query: marker, topK: 5, initialK: 20 });
    expect(after.hits.map((hit) => hit.document.id)).to.not.include(docId);
    expect(filesContaining(dir, marker)).to.deep.equal([]);
    await runtime.stop();
    expect(filesContaining(dir, marker)).to.deep.equal([]);

    runtime = await open();
    await runtime.start();
    await runtime.projections.rebuild(KNOWLEDGE);
    await settle(runtime);
    await runtime.stop();
    expect(filesContaining(dir, marker)).to.deep.equal([]);
    expect(filesContaining(dir, 'keepsakeword1234')).to.not.deep.equal([]);
  });

  it('leaves no title and no file name readable: not in tasks, not in the event log, not in any file', async () => {
    const title = `zqtitle${Math.random().toString(36).slice(2, 12)}`;
    const name = `zqname${Math.random().toString(36).slice(2, 12)}`;
    const body = (heading: string) =>
      `# ${heading}\n\nThe survey team measured the water along the northern bank of the river.\n`;
    const app = await startTestApp({
      env: { DATA_DIR: dir, EVENT_STORE: 'file', SCRUB_DELAY_MS: '20' },
    });
    try {
      // One synchronous upload and one through a background task, each with the markers.
      const sync = await app.http
        .post('/api/v1/upload')
        .attach('file', Buffer.from(body(`${title} one`)), `${name}-one.md`)
        .expect(200);
      const accepted = await app.http
        .post('/api/v1/upload/async')
        .attach('file', Buffer.from(body(`${title} two`)), `${name}-two.md`)
        .expect(202);
      const taskId = accepted.body.task_id as string;
      const done = await eventually(async () => {
        const task = (await app.http.get(`/api/v1/tasks/${taskId}`).expect(200)).body;
        return task.status === 'completed' ? (task as { result: { doc_id: string } }) : undefined;
      });
      const asyncDocId = done.result.doc_id;
      await settle(app.runtime);
      expect(filesContaining(dir, title)).to.not.deep.equal([]);
      expect(filesContaining(dir, name)).to.not.deep.equal([]);

      for (const docId of [sync.body.doc_id as string, asyncDocId])
        await app.http.delete(`/api/v1/documents/${docId}`).expect(200);
      await settle(app.runtime);

      const tasks = JSON.stringify((await app.http.get('/api/v1/tasks').expect(200)).body);
      expect(tasks).to.not.include(title).and.to.not.include(name);
      const task = await app.http.get(`/api/v1/tasks/${taskId}`);
      expect(JSON.stringify(task.body)).to.not.include(title).and.to.not.include(name);
      const log = JSON.stringify(await app.runtime.eventStore.readAll());
      expect(log).to.not.include(title).and.to.not.include(name);
      expect(filesContaining(dir, title)).to.deep.equal([]);
      expect(filesContaining(dir, name)).to.deep.equal([]);
    } finally {
      await app.stop();
    }
    expect(filesContaining(dir, title)).to.deep.equal([]);
    expect(filesContaining(dir, name)).to.deep.equal([]);
    const runtime = await open();
    await runtime.start();
    for (const { name: projection } of runtime.projections.status())
      await runtime.projections.rebuild(projection);
    await settle(runtime);
    await runtime.stop();
    expect(filesContaining(dir, title)).to.deep.equal([]);
    expect(filesContaining(dir, name)).to.deep.equal([]);
  });
});
