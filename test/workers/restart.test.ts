import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { taskStream } from '../../src/domain/task/events.js';
import type { RecordedEvent } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { eventually } from '../support/testApp.js';

const fixture = join(import.meta.dirname, 'fixtures', 'runtimeWithJobs.ts');
/** Every child started, killed after each test (also the ones a failed test left running). */
const children: ChildProcess[] = [];

function start(dataDir: string, ...args: string[]): { child: ChildProcess; output: Promise<string[]> } {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, dataDir, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines: string[] = [];
  const output = new Promise<string[]>((resolve) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (lines.includes('ready')) resolve(lines);
    });
  });
  return { child, output };
}

async function taskEvents(dataDir: string, taskId: string): Promise<RecordedEvent[]> {
  const store = createSqliteEventStore({ path: join(dataDir, 'events.db') });
  try {
    return await store.readStream(taskStream(taskId));
  } finally {
    await store.close();
  }
}

async function killMidTask(dataDir: string, jobType: string): Promise<string> {
  const first = start(dataDir, 'create', jobType);
  const lines = await first.output;
  const taskId = lines.find((line) => line.startsWith('task '))!.slice(5);
  await eventually(async () => {
    const progressed = (await taskEvents(dataDir, taskId)).filter((e) => e.type === 'TaskProgressed');
    return progressed.length >= 4 ? true : undefined;
  }, 15_000);
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  return taskId;
}

/** Starts the runtime again and waits until the task's last event is `lastType`; returns its events. */
async function restartUntil(dataDir: string, taskId: string, lastType: string): Promise<RecordedEvent[]> {
  await start(dataDir).output;
  return eventually(async () => {
    const all = await taskEvents(dataDir, taskId);
    return all.at(-1)?.type === lastType ? all : undefined;
  }, 20_000);
}

describe('a worker killed mid-task', function () {
  this.timeout(60_000);
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'archivist-restart-'));
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resumes a resumable task after restart, from its recorded progress, and completes it', async () => {
    const taskId = await killMidTask(dataDir, 'resumable');
    const before = await taskEvents(dataDir, taskId);
    expect(before.at(-1)!.type).to.not.be.oneOf(['TaskCompleted', 'TaskFailed']);
    const lastProgress = Math.max(
      ...before.filter((e) => e.type === 'TaskProgressed').map((e) => e.data['progress'] as number),
    );

    const events = await restartUntil(dataDir, taskId, 'TaskCompleted');
    const resumed = events.find((e) => e.type === 'TaskResumed')!;
    expect(resumed.data).to.include({
      attempt: 2,
      reason: 'attempt 1 was interrupted',
      resumeFrom: lastProgress,
    });
    expect(events.at(-1)!.data['result']).to.deep.equal({ resumedAtStep: Math.round(lastProgress * 20) });
    // Nothing was done twice after the resume: progress is strictly increasing from there.
    const after = events
      .slice(events.indexOf(resumed))
      .filter((e) => e.type === 'TaskProgressed')
      .map((e) => e.data['progress'] as number);
    expect(after[0]).to.be.greaterThan(lastProgress);
    expect(after).to.deep.equal([...after].sort((a, b) => a - b));
  });

  it('fails a task that cannot resume, with the reason, instead of leaving it running', async () => {
    const taskId = await killMidTask(dataDir, 'fragile');
    const events = await restartUntil(dataDir, taskId, 'TaskFailed');
    expect(events.at(-1)!.data).to.include({
      reason: 'worker_lost',
      error: 'attempt 1 was interrupted and this job cannot resume',
    });
  });
});
