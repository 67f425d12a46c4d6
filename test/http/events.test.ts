import { expect } from 'chai';
import { clusterMode } from '../support/cluster.js';
import { openSse, type SseConnection, type SseEvent } from '../support/sseClient.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { createTask } from '../../src/commands/newTask.js';

const caller = { actorId: 'auditor-test', correlationId: 'c' };

describe('GET /api/v1/events (the event log as SSE)', () => {
  let app: TestApp;
  let base: string;
  const headers = { 'X-API-Key': 'audit-key' };
  beforeEach(async () => {
    app = await startTestApp({ env: { API_KEYS: 'audit-key', SSE_KEEPALIVE_MS: '50' } });
    base = `${(await app.server()).url}/api/v1/events`;
  });
  afterEach(async () => app.stop());

  const newTask = async (n: number): Promise<string> =>
    (await createTask(app.runtime.tasks, 'noop', { n }, caller)).taskId;
  /**
   * Where a test's streams start: the start of the log, which is the test's own. A cluster's log holds
   * every suite's events, so there the test's streams start where the log ends when it begins.
   */
  const since = async (): Promise<number> => (clusterMode() ? app.runtime.eventStore.headPosition() : 0);
  const resumeAt = (position: number): Record<string, string> =>
    position > 0 ? { 'Last-Event-ID': String(position) } : {};
  /** The next event of a task: in a cluster, events other processes append may come between. */
  const nextOf = async (stream: SseConnection, taskId: string): Promise<SseEvent> => {
    for (;;) {
      const event = await stream.next();
      if (!clusterMode() || event.data['stream'] === `task-${taskId}`) return event;
    }
  };

  it('replays the log from the start, then follows new events live, each named by its type with its position as id', async () => {
    if (clusterMode()) {
      const [oldest] = await app.runtime.eventStore.readAll({
        filter: { streamPrefixes: ['task-'] },
        maxCount: 1,
      });
      const fromStart = await openSse(`${base}?category=task`, headers);
      const [replayed] = await fromStart.take(1);
      fromStart.close();
      expect(replayed!.id).to.equal(String(oldest!.position));
      expect(replayed!.data).to.include({ type: oldest!.type, stream: oldest!.streamName });
    }
    const start = await since();
    const first = await newTask(1);
    const stream = await openSse(`${base}?category=task`, { ...headers, ...resumeAt(start) });
    try {
      expect(stream.status).to.equal(200);
      const created = await nextOf(stream, first);
      expect(created.event).to.equal('TaskCreated');
      expect(created.data).to.include({ type: 'TaskCreated', stream: `task-${first}`, version: 1 });
      expect(created.id).to.equal(String(created.data['position']));
      const second = await newTask(2);
      const live = await nextOf(stream, second);
      expect(live.data).to.include({ type: 'TaskCreated', stream: `task-${second}` });
      expect(Number(live.id)).to.be.greaterThan(Number(created.id));
    } finally {
      stream.close();
    }
  });

  it('sends keep-alive comments every SSE_KEEPALIVE_MS while idle, then still delivers the next event', async () => {
    const start = await since();
    const opened = Date.now();
    const stream = await openSse(`${base}?category=task`, { ...headers, ...resumeAt(start) });
    try {
      expect(stream.status).to.equal(200);
      // The log holds no task event yet: the stream is idle, and only keep-alives come.
      expect([await stream.nextComment(), await stream.nextComment()]).to.deep.equal([
        'keep-alive',
        'keep-alive',
      ]);
      expect(Date.now() - opened, 'two 50 ms intervals').to.be.at.least(90);
      const taskId = await newTask(1);
      const live = await nextOf(stream, taskId);
      expect(live.event).to.equal('TaskCreated');
      expect(live.data).to.include({ type: 'TaskCreated', stream: `task-${taskId}`, version: 1 });
      expect(await stream.nextComment()).to.equal('keep-alive');
    } finally {
      stream.close();
    }
  });

  it('resumes after Last-Event-ID with no gap and no repeat', async () => {
    const start = await since();
    for (let n = 0; n < 3; n += 1) await newTask(n);
    const all = (
      await app.runtime.eventStore.readAll({ fromPosition: start, filter: { streamPrefixes: ['task-'] } })
    ).map((event) => String(event.position));
    const firstVisit = await openSse(`${base}?category=task`, { ...headers, ...resumeAt(start) });
    const seen = (await firstVisit.take(2)).map((event) => event.id!);
    firstVisit.close();
    await newTask(3);
    const everything = [
      ...all,
      ...(
        await app.runtime.eventStore.readAll({
          fromPosition: Number(all.at(-1)),
          filter: { streamPrefixes: ['task-'] },
        })
      ).map((event) => String(event.position)),
    ];
    const resumed = await openSse(`${base}?category=task`, { ...headers, 'Last-Event-ID': seen.at(-1)! });
    const rest = (await resumed.take(everything.length - seen.length)).map((event) => event.id!);
    resumed.close();
    expect([...seen, ...rest]).to.deep.equal(everything);
  });

  it('filters by category and by event type at the store', async () => {
    const start = await since();
    const task = await newTask(1);
    await app.runtime.tasks.execute('CancelTask', { taskId: task, reason: 'no' }, caller);
    const stream = await openSse(`${base}?types=TaskCancelled`, { ...headers, ...resumeAt(start) });
    const [cancelled] = await stream.take(1);
    stream.close();
    expect(cancelled!.data).to.include({ type: 'TaskCancelled', stream: `task-${task}` });
    // Task events come first in the log: the first event of another category proves the filter.
    const other = await openSse(`${base}?category=document,purged`, {
      ...headers,
      ...resumeAt(await since()),
    });
    await app.runtime.eventStore.append('purged-task-x', [
      { type: 'TaskPurged', data: { taskId: 'x' }, metadata: { ...caller, now: new Date(0).toISOString() } },
    ]);
    const [purged] = await other.take(1);
    other.close();
    expect(purged!.data).to.include({ type: 'TaskPurged', stream: 'purged-task-x' });
  });

  it('refuses a client without a key before opening a stream, and a malformed filter with 422', async () => {
    const anonymous = await fetch(base);
    expect(anonymous.status).to.equal(401);
    await anonymous.body?.cancel();
    const malformed = await fetch(`${base}?category=Task;DROP`, { headers });
    expect(malformed.status).to.equal(422);
    await malformed.body?.cancel();
  });
});
