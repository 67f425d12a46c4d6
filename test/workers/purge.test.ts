import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { TASKS } from '../../src/projections/tasksProjection.js';
import { eventually } from '../support/eventually.js';
import { stepsJob } from '../support/testJobs.js';
import { filesContaining } from '../support/filesContaining.js';
import { createTask } from '../../src/commands/newTask.js';

describe('purging a stream', function () {
  this.timeout(30_000);
  let dir: string;
  const open = (): Promise<Runtime> =>
    createRuntime(
      loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', SCRUB_DELAY_MS: '20', TASK_HEARTBEAT_MS: '100' }),
      { log: silentLogger, jobs: [stepsJob] },
    );
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'archivist-purge-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves nothing of it in any file under DATA_DIR, after a restart and a rebuild too', async () => {
    const marker = `MARKER-${Math.random().toString(36).slice(2, 12)}`;
    const caller = { actorId: 'user-1', correlationId: 'c' };
    let runtime = await open();
    await runtime.start();
    // Other data that must survive, with a marker of its own.
    const kept = await createTask(
      runtime.tasks,
      'steps',
      { steps: 1, stepMs: 1, note: 'KEEP-ME-1234' },
      caller,
    );
    const doomed = await createTask(runtime.tasks, 'steps', { steps: 2, stepMs: 1, secret: marker }, caller);
    await eventually(async () => {
      const task = await runtime.readModels.get<{ id: string; status: string }>(TASKS, doomed.taskId);
      return task?.status === 'completed' ? true : undefined;
    });
    expect(filesContaining(dir, marker)).to.not.deep.equal([]);

    const purge = await runtime.tasks.execute('PurgeTask', { taskId: doomed.taskId }, caller);
    expect(purge.appended.map((event) => event.type)).to.deep.equal(['TaskPurged']);
    expect(await runtime.reactors.waitFor(purge.position, 10_000)).to.equal(true);
    expect(await runtime.projections.waitFor(purge.position)).to.equal(true);
    await runtime.scrubber.idle();
    expect(await runtime.readModels.get(TASKS, doomed.taskId)).to.equal(null);
    expect(await runtime.eventStore.readStream(`task-${doomed.taskId}`)).to.deep.equal([]);
    // The record of the purge stays, and names nothing of the content.
    const record = await runtime.eventStore.readStream(`purged-task-${doomed.taskId}`);
    expect(record.map((event) => [event.type, event.data])).to.deep.equal([
      ['TaskPurged', { taskId: doomed.taskId, stream: `task-${doomed.taskId}` }],
    ]);
    expect(filesContaining(dir, marker)).to.deep.equal([]);
    // Purging again changes nothing.
    expect(
      (await runtime.tasks.execute('PurgeTask', { taskId: doomed.taskId }, caller)).appended,
    ).to.deep.equal([]);
    await runtime.stop();
    expect(filesContaining(dir, marker)).to.deep.equal([]);

    runtime = await open();
    await runtime.start();
    await runtime.projections.rebuild('tasks');
    expect(await runtime.readModels.get(TASKS, doomed.taskId)).to.equal(null);
    expect(await runtime.readModels.get(TASKS, kept.taskId)).to.deep.include({ status: 'completed' });
    await runtime.stop();
    expect(filesContaining(dir, marker)).to.deep.equal([]);
    expect(filesContaining(dir, 'KEEP-ME-1234')).to.not.deep.equal([]);
  });

  it('refuses to purge a task that has not finished', async () => {
    const runtime = await open();
    await runtime.start();
    try {
      const caller = { actorId: 'user-1', correlationId: 'c' };
      const { taskId } = await createTask(runtime.tasks, 'nobody-runs-this', {}, caller);
      const error = await runtime.tasks.execute('PurgeTask', { taskId }, caller).then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(error).to.include({ code: 'task_not_finished' });
    } finally {
      await runtime.stop();
    }
  });
});
