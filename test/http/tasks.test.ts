import { expect } from 'chai';
import type { TaskView } from '../../src/projections/tasksProjection.js';
import { clusterMode, skipInCluster } from '../support/cluster.js';
import { eventually, startTestApp, type TestApp } from '../support/testApp.js';
import { enqueueTask, taskAttemptLease } from '../../src/workers/jobs.js';
import {
  explodingJob,
  stepsJob,
  trackedJob,
  trackedRuns,
  waitEnds,
  waitingJob,
} from '../support/testJobs.js';
import { createTask } from '../../src/commands/newTask.js';

const caller = { actorId: 'test', correlationId: 'test' };

/** For tests that run this suite's own job types: the cluster's workers know only the product's. */
const runsTestJobs = (context: Mocha.Context): void =>
  skipInCluster(
    context,
    "runs this suite's own job types (steps, explode, wait, tracked), unknown to the cluster's workers",
  );

describe('tasks API', () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await startTestApp({ jobs: [stepsJob, explodingJob, waitingJob, trackedJob] });
  });
  afterEach(async () => app.stop());

  async function create(jobType: string, input: Record<string, unknown> = {}): Promise<string> {
    const { taskId, position } = await createTask(app.runtime.tasks, jobType, input, caller);
    await app.runtime.projections.waitFor(position);
    return taskId;
  }
  const getTask = async (id: string) =>
    (await app.http.get(`/api/v1/tasks/${id}`).expect(200)).body as Record<string, unknown>;
  /** Tasks there are already: none in a fresh app, every suite's in a cluster. */
  const existing = async (): Promise<number> =>
    clusterMode() ? ((await app.http.get('/api/v1/tasks?limit=1').expect(200)).body.total as number) : 0;
  const untilStatus = (id: string, status: string, timeoutMs?: number) =>
    eventually(async () => {
      const task = await getTask(id);
      return task['status'] === status ? task : undefined;
    }, timeoutMs);

  describe('running tasks', () => {
    it('runs a task to completion, recording progress and result', async function () {
      runsTestJobs(this);
      const id = await create('steps', { steps: 4, stepMs: 5 });
      const done = await untilStatus(id, 'completed');
      expect(done).to.include({
        task_id: id,
        status: 'completed',
        progress: 1,
        error: null,
        task_type: 'steps',
        attempt: 1,
      });
      expect(done['result']).to.deep.equal({ steps: 4, resumedAt: 0 });
      expect(Date.parse(done['started_at'] as string)).to.be.at.least(
        Date.parse(done['created_at'] as string),
      );
      expect(Date.parse(done['completed_at'] as string)).to.be.at.least(
        Date.parse(done['started_at'] as string),
      );
      const events = await app.runtime.eventStore.readStream(`task-${id}`);
      expect(events.map((e) => e.type)).to.deep.equal([
        'TaskCreated',
        'TaskStarted',
        'TaskProgressed',
        'TaskProgressed',
        'TaskProgressed',
        'TaskProgressed',
        'TaskCompleted',
      ]);
      expect(events.filter((e) => e.type === 'TaskProgressed').map((e) => e.data['progress'])).to.deep.equal([
        0.25, 0.5, 0.75, 1,
      ]);
    });

    it('fails a task whose job throws, keeping the error', async function () {
      runsTestJobs(this);
      const id = await create('explode');
      const failed = await untilStatus(id, 'failed');
      expect(failed).to.include({ status: 'failed', error: 'the input was unreadable', progress: 0.25 });
      expect(failed['completed_at']).to.be.a('string');
    });

    it('fails a task that runs past its time limit', async function () {
      runsTestJobs(this);
      const id = await create('wait');
      const failed = await untilStatus(id, 'failed', 6_000);
      expect(failed['error']).to.equal('timed out after 2000 ms');
    });

    it('keeps a quiet running task alive through its lease, without growing its stream', async function () {
      runsTestJobs(this);
      // One step longer than the lease (1 s here): the worker renews it meanwhile.
      const id = await create('steps', { steps: 1, stepMs: 2_500 });
      await untilStatus(id, 'running');
      const lease = taskAttemptLease(id);
      expect(await app.runtime.readStore.acquireLease(lease, 'intruder', 1_000)).to.equal(null);
      const done = await untilStatus(id, 'completed', 10_000);
      expect(done['attempt']).to.equal(1);
      const events = await app.runtime.eventStore.readStream(`task-${id}`);
      expect(events.map((e) => e.type)).to.deep.equal([
        'TaskCreated',
        'TaskStarted',
        'TaskProgressed',
        'TaskCompleted',
      ]);
    });

    it('acknowledges a duplicate job of a task running elsewhere without superseding it', async function () {
      runsTestJobs(this);
      const id = await create('steps', { steps: 3, stepMs: 400 });
      await untilStatus(id, 'running');
      // A copy of the job, as a re-dispatch past the bus's de-duplication would make.
      expect(
        await enqueueTask(app.runtime.bus, `${id}:duplicate`, { taskId: id, jobType: 'steps' }),
      ).to.equal(true);
      const done = await untilStatus(id, 'completed', 10_000);
      expect(done['attempt']).to.equal(1);
      const events = await app.runtime.eventStore.readStream(`task-${id}`);
      expect(events.map((e) => e.type)).to.not.include('TaskResumed');
    });
  });

  describe('GET /api/v1/tasks', () => {
    it('lists tasks newest first, with the total matching the filter', async () => {
      const before = await existing();
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push(await create('nobody-knows-this'));
      const response = await app.http.get('/api/v1/tasks?limit=3').expect(200);
      expect(response.body.total).to.equal(before + 5);
      expect(response.body.tasks.map((t: { task_id: string }) => t.task_id)).to.deep.equal(
        ids.slice(-3).reverse(),
      );
      for (const task of response.body.tasks) {
        expect(task).to.include.all.keys(
          'task_id',
          'status',
          'progress',
          'result',
          'error',
          'created_at',
          'started_at',
          'completed_at',
        );
      }
    });

    it('filters by status', async function () {
      runsTestJobs(this);
      const done = await create('steps', { steps: 1, stepMs: 1 });
      await untilStatus(done, 'completed');
      await create('nobody-knows-this');
      const completed = await app.http.get('/api/v1/tasks?status=completed').expect(200);
      expect(completed.body.total).to.equal(1);
      expect(completed.body.tasks[0].task_id).to.equal(done);
      const pending = await app.http.get('/api/v1/tasks?status=pending').expect(200);
      expect(pending.body.total).to.equal(1);
    });

    it('defaults to 50 tasks', async () => {
      const before = await existing();
      await Promise.all(
        Array.from({ length: 55 }, () => createTask(app.runtime.tasks, 'nobody-knows-this', {}, caller)),
      );
      const { position } = await createTask(app.runtime.tasks, 'nobody-knows-this', {}, caller);
      await app.runtime.projections.waitFor(position);
      const response = await app.http.get('/api/v1/tasks').expect(200);
      expect(response.body.tasks).to.have.length(50);
      expect(response.body.total).to.equal(before + 56);
    });

    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['status=done', 'status'],
      ['status=', 'status'],
    ] as const) {
      it(`rejects ${query} with 422 naming the field`, async () => {
        const response = await app.http.get(`/api/v1/tasks?${query}`).expect(422);
        expect(response.body).to.include({ error: 'validation_error', status_code: 422 });
        expect(response.body.errors[0]).to.include({ location: 'query', field });
        expect(response.body.detail).to.include(`query.${field}`);
      });
    }

    it('accepts the boundaries 1 and 200 and ignores unknown parameters', async () => {
      await app.http.get('/api/v1/tasks?limit=1').expect(200);
      await app.http.get('/api/v1/tasks?limit=200&page=3&sort=evil').expect(200);
    });
  });

  describe('GET /api/v1/tasks/{task_id}', () => {
    it('answers 404 in the error shape for an unknown or malformed id', async () => {
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '%27%20OR%201=1']) {
        const response = await app.http.get(`/api/v1/tasks/${id}`).expect(404);
        expect(response.body).to.include({ error: 'task_not_found', status_code: 404 });
      }
    });
  });

  describe('DELETE /api/v1/tasks/{task_id}', () => {
    it('cancels a pending task; the next read already shows it', async () => {
      const id = await create('nobody-knows-this');
      const response = await app.http.delete(`/api/v1/tasks/${id}`).expect(200);
      expect(response.body).to.deep.equal({ task_id: id, status: 'cancelled', message: 'Task cancelled' });
      const task = await getTask(id);
      expect(task['status']).to.equal('cancelled');
      expect(task['completed_at']).to.be.a('string');
    });

    it('cancels a running task: the job itself stops, and nothing follows the cancellation', async function () {
      runsTestJobs(this);
      const id = await create('tracked', { stepMs: 20 });
      await eventually(async () => ((await getTask(id))['progress'] as number) > 0 || undefined);
      await app.http.delete(`/api/v1/tasks/${id}`).expect(200);
      const [run] = trackedRuns.get(id)!;
      expect(await run!.ended).to.equal('TaskStopped: task cancelled');
      const stepsAtEnd = run!.steps;
      const events = await app.runtime.eventStore.readStream(`task-${id}`);
      expect(events.at(-1)!.type).to.equal('TaskCancelled');
      expect(trackedRuns.get(id)).to.have.length(1);
      expect(run!.steps).to.equal(stepsAtEnd);
      expect((await getTask(id))['status']).to.equal('cancelled');
    });

    it('cancels a task waiting on I/O through its abort signal, not its time limit', async function () {
      runsTestJobs(this);
      const id = await create('wait');
      await untilStatus(id, 'running');
      await app.http.delete(`/api/v1/tasks/${id}`).expect(200);
      // The job ends by its abort signal with the cancellation, not with its 2 s time limit.
      expect(await eventually(() => waitEnds.get(id))).to.equal('TaskStopped: task cancelled');
      expect((await getTask(id))['status']).to.equal('cancelled');
    });

    it('repeats harmlessly on a cancelled task', async () => {
      const id = await create('nobody-knows-this');
      await app.http.delete(`/api/v1/tasks/${id}`).expect(200);
      const again = await app.http.delete(`/api/v1/tasks/${id}`).expect(200);
      expect(again.body.message).to.equal('Task was already cancelled');
    });

    it('refuses to cancel a completed or failed task with 409', async function () {
      runsTestJobs(this);
      const done = await create('steps', { steps: 1, stepMs: 1 });
      await untilStatus(done, 'completed');
      const response = await app.http.delete(`/api/v1/tasks/${done}`).expect(409);
      expect(response.body).to.include({ error: 'task_finished', status_code: 409 });
      expect(response.body.detail).to.match(/already completed/);
      const failed = await create('explode');
      await untilStatus(failed, 'failed');
      await app.http.delete(`/api/v1/tasks/${failed}`).expect(409);
    });

    it('answers 404 for an unknown task', async () => {
      const response = await app.http
        .delete('/api/v1/tasks/00000000-0000-4000-8000-000000000000')
        .expect(404);
      expect(response.body.error).to.equal('task_not_found');
    });
  });

  describe('the task read model', () => {
    it('is rebuilt from the events with identical contents', async function () {
      skipInCluster(this, "rebuilds the tasks projection in-process; the cluster's projector applies it");
      runsTestJobs(this);
      const ids = [
        await create('steps', { steps: 2, stepMs: 1 }),
        await create('explode'),
        await create('nobody-knows-this'),
      ];
      await untilStatus(ids[0]!, 'completed');
      await untilStatus(ids[1]!, 'failed');
      await app.http.delete(`/api/v1/tasks/${ids[2]}`).expect(200);
      const before = await app.runtime.readModels.find<TaskView>('tasks', { sort: [['createdAt', 1]] });
      await app.runtime.projections.rebuild('tasks');
      const after = await app.runtime.readModels.find<TaskView>('tasks', { sort: [['createdAt', 1]] });
      expect(after).to.deep.equal(before);
    });
  });
});
