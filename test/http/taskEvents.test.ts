import { get as httpGet } from 'node:http';
import { expect } from 'chai';
import { skipInCluster } from '../support/cluster.js';
import { eventually, startTestApp, type TestApp } from '../support/testApp.js';
import { stepsJob } from '../support/testJobs.js';
import { createTask } from '../../src/commands/newTask.js';

interface SseEvent {
  id: string | null;
  event: string | null;
  data: Record<string, unknown>;
}

/** Reads a whole SSE response (until the server ends it), parsed into events. */
async function readSse(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; events: SseEvent[] }> {
  const response = await fetch(url, {
    headers: { Accept: 'text/event-stream', ...headers },
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  const events = text
    .split('\n\n')
    .filter((frame) => frame.includes('data:'))
    .map((frame) => {
      const field = (name: string) =>
        frame
          .split('\n')
          .find((line) => line.startsWith(`${name}: `))
          ?.slice(name.length + 2) ?? null;
      return {
        id: field('id'),
        event: field('event'),
        data: JSON.parse(field('data') ?? 'null') as Record<string, unknown>,
      };
    });
  return { status: response.status, events };
}

/** For tests that wait for the suite's own job to run: the cluster's workers know only the product's. */
const runsTestJobs = (context: Mocha.Context): void =>
  skipInCluster(
    context,
    "waits for this suite's own job type (steps) to run, unknown to the cluster's workers",
  );

describe('GET /api/v1/tasks/{task_id}/events (SSE)', () => {
  let app: TestApp;
  let base: string;
  beforeEach(async () => {
    app = await startTestApp({ jobs: [stepsJob], env: { API_KEYS: 'k' } });
    base = (await app.server()).url;
  });
  afterEach(async () => app.stop());

  const create = async (input: Record<string, unknown>) => {
    const { taskId, position } = await createTask(app.runtime.tasks, 'steps', input, {
      actorId: 't',
      correlationId: 'c',
    });
    await app.runtime.projections.waitFor(position);
    return taskId;
  };

  it('replays a task from the start, follows it live, and ends at its terminal event', async function () {
    runsTestJobs(this);
    const id = await create({ steps: 5, stepMs: 40 });
    const { status, events } = await readSse(`${base}/api/v1/tasks/${id}/events`, { 'X-API-Key': 'k' });
    expect(status).to.equal(200);
    expect(events.map((e) => e.event)).to.deep.equal([
      'TaskCreated',
      'TaskStarted',
      'TaskProgressed',
      'TaskProgressed',
      'TaskProgressed',
      'TaskProgressed',
      'TaskProgressed',
      'TaskCompleted',
    ]);
    expect(events.map((e) => e.id)).to.deep.equal(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect(events[2]!.data).to.include({
      type: 'TaskProgressed',
      task_id: id,
      version: 3,
      progress: 0.2,
      message: 'step 1 of 5',
    });
    expect(events.at(-1)!.data).to.deep.include({
      type: 'TaskCompleted',
      result: { steps: 5, resumedAt: 0 },
    });
  });

  it('resumes after Last-Event-ID', async function () {
    runsTestJobs(this);
    const id = await create({ steps: 2, stepMs: 1 });
    await eventually(async () =>
      (await app.runtime.eventStore.streamInfo(`task-${id}`)).version === 5 ? true : undefined,
    );
    const { events } = await readSse(`${base}/api/v1/tasks/${id}/events`, {
      'X-API-Key': 'k',
      'Last-Event-ID': '3',
    });
    expect(events.map((e) => [e.id, e.event])).to.deep.equal([
      ['4', 'TaskProgressed'],
      ['5', 'TaskCompleted'],
    ]);
  });

  it('answers 204 to a client reconnecting after the end, so EventSource stops', async function () {
    runsTestJobs(this);
    const id = await create({ steps: 1, stepMs: 1 });
    await eventually(async () =>
      (await app.runtime.eventStore.streamInfo(`task-${id}`)).version === 4 ? true : undefined,
    );
    const { status, events } = await readSse(`${base}/api/v1/tasks/${id}/events`, {
      'X-API-Key': 'k',
      'Last-Event-ID': '4',
    });
    expect(status).to.equal(204);
    expect(events).to.deep.equal([]);
  });

  it('treats a malformed Last-Event-ID as none', async function () {
    runsTestJobs(this);
    const id = await create({ steps: 1, stepMs: 1 });
    const { events } = await readSse(`${base}/api/v1/tasks/${id}/events`, {
      'X-API-Key': 'k',
      'Last-Event-ID': 'garbage',
    });
    expect(events[0]!.event).to.equal('TaskCreated');
  });

  it('answers 404 for an unknown task and 401 without a key, before opening a stream', async () => {
    const missing = await fetch(`${base}/api/v1/tasks/00000000-0000-4000-8000-000000000000/events`, {
      headers: { 'X-API-Key': 'k' },
    });
    expect(missing.status).to.equal(404);
    expect(missing.headers.get('content-type')).to.match(/application\/json/);
    expect(((await missing.json()) as { error: string }).error).to.equal('task_not_found');
    const anonymous = await fetch(`${base}/api/v1/tasks/00000000-0000-4000-8000-000000000000/events`);
    expect(anonymous.status).to.equal(401);
  });

  it('stops following when the client disconnects', async () => {
    const id = await create({ steps: 200, stepMs: 50 });
    const { server } = await app.server();
    const closed = new Promise<{ finished: boolean; at: number }>((resolve) => {
      server.on('request', (_request, response) => {
        if (_request.url?.endsWith('/events'))
          response.on('close', () => resolve({ finished: response.writableFinished, at: Date.now() }));
      });
    });
    const request = httpGet(`${base}/api/v1/tasks/${id}/events`, { headers: { 'X-API-Key': 'k' } });
    const firstBytes = await new Promise<number>((resolve) =>
      request.on('response', (response) => response.once('data', () => resolve(Date.now()))),
    );
    request.destroy();
    const { finished, at } = await closed;
    expect(finished).to.equal(false);
    expect(at - firstBytes).to.be.lessThan(500);
    await app.http.delete(`/api/v1/tasks/${id}`).set('X-API-Key', 'k').expect(200);
  });
});
