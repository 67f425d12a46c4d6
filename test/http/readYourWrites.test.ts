import { expect } from 'chai';
import { STALE_READ_HEADER } from '../../src/http/mountRoutes.js';
import { defineRoute, type Route } from '../../src/http/route.js';
import { TASKS, type TaskView } from '../../src/projections/tasksProjection.js';
import { VECTORS_PROJECTION } from '../../src/knowledge/vectorProjector.js';
import { skipInCluster } from '../support/cluster.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { createTask } from '../../src/commands/newTask.js';

const caller = { actorId: 'test', correlationId: 'test' };

/** Test routes: one writes a task and waits for `tasks`; one claims a position the log never reaches. */
function routes(app: () => TestApp): Route[] {
  const base = {
    tags: ['Test'],
    responses: { 200: { description: 'ok', schema: { type: 'object' } } },
  } as const;
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/test/tasks',
      operationId: 'testCreateTask',
      summary: 'Creates a task',
      readAfterWrite: [TASKS],
      async handle() {
        const { taskId, position } = await createTask(app().runtime.tasks, 'noop', {}, caller);
        return { body: { taskId }, position };
      },
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/test/future',
      operationId: 'testFuture',
      summary: 'Claims a position beyond the head',
      readAfterWrite: [TASKS],
      async handle() {
        return { body: {}, position: 1_000_000 };
      },
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/test/tasks-and-vectors',
      operationId: 'testTasksAndVectors',
      summary: 'Creates a task, read after write from the tasks and the vector index',
      readAfterWrite: [TASKS, VECTORS_PROJECTION],
      async handle() {
        const { taskId, position } = await createTask(app().runtime.tasks, 'noop', {}, caller);
        return { body: { taskId }, position };
      },
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/test/no-wait',
      operationId: 'testNoWait',
      summary: 'Declares no projections',
      async handle() {
        return { body: {}, position: 1_000_000 };
      },
    }),
  ];
}

describe('read-your-writes per route', () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await startTestApp({
      env: { READ_YOUR_WRITES_TIMEOUT_MS: '150' },
      app: { retrievalRoutes: routes(() => app) },
    });
  });
  afterEach(async () => app.stop());

  it("answers once the route's projections hold the write: the read model has it already", async () => {
    const response = await app.http.post('/api/v1/test/tasks').expect(200);
    expect(response.headers[STALE_READ_HEADER.toLowerCase()]).to.equal(undefined);
    const view = await app.runtime.readModels.get<TaskView>(TASKS, response.body.taskId as string);
    expect(view?.status).to.equal('pending');
  });

  it('says so in a header when the projections did not catch up within the timeout', async function () {
    skipInCluster(
      this,
      'claims a position past the head of the log: a projection another process applies has reached it when no event it handles lies past its checkpoint',
    );
    const started = Date.now();
    const response = await app.http.post('/api/v1/test/future').expect(200);
    expect(response.headers[STALE_READ_HEADER.toLowerCase()]).to.equal('timeout; projections=tasks');
    expect(Date.now() - started).to.be.at.least(140);
  });

  it('names only the projections that did not catch up, not every one the route waits for', async function () {
    skipInCluster(
      this,
      "stops the vector index's projector in-process; the cluster's projector process feeds Milvus",
    );
    // The vector index stops following the log; the tasks read model goes on.
    await app.runtime.knowledge.collections.servingProjector()!.stop();
    const response = await app.http.post('/api/v1/test/tasks-and-vectors').expect(200);
    expect(response.headers[STALE_READ_HEADER.toLowerCase()]).to.equal('timeout; projections=vectors');
  });

  it('an asynchronous task is answered only once the tasks read model holds it (upload and scrape)', async function () {
    skipInCluster(this, "stops the projections in-process; the cluster's projector applies them");
    // With the projections stopped, the wait must time out and say so: proof that it waits at all.
    await app.runtime.projections.stop();
    const scrape = await app.http
      .post('/api/v1/scrape/async')
      .send({ urls: ['https://example.com/a'] })
      .expect(202);
    expect(scrape.headers[STALE_READ_HEADER.toLowerCase()]).to.equal('timeout; projections=tasks');
    const upload = await app.http
      .post('/api/v1/upload/async')
      .attach('file', Buffer.from('# Notes\n\nSome text.'), 'notes.md')
      .expect(202);
    expect(upload.headers[STALE_READ_HEADER.toLowerCase()]).to.equal('timeout; projections=tasks');
  });

  it('does not wait for a route that declares no projections', async () => {
    const response = await app.http.post('/api/v1/test/no-wait').expect(200);
    expect(response.headers[STALE_READ_HEADER.toLowerCase()]).to.equal(undefined);
  });
});
