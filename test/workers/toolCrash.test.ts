import { childEnv } from '../support/childEnv.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { eventually, type TestApp } from '../support/testApp.js';
import { startToolsApp } from '../support/toolsApp.js';
import { decidedOutcome, requestDocumentDeletion } from '../support/pendingDeletion.js';
import { tasksOfAction } from '../support/actionTasks.js';

const API = '/api/method/assistant.api';
const fixture = join(import.meta.dirname, 'fixtures', 'toolCrash.ts');

/** Starts the crashing process on `dataDir` and resolves with its URL once it serves. */
function startCrashingProcess(
  dataDir: string,
  crashAt: 'before-effect' | 'after-effect',
): Promise<{ child: ChildProcess; url: string; lines: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
    env: childEnv({
      DATA_DIR: dataDir,
      EVENT_STORE: 'file',
      PORT: '0',
      LOG_LEVEL: 'warn',
      TASK_HEARTBEAT_MS: '100',
      PARSE_WORKERS: '1',
      TOOL_CRASH_AT: crashAt,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const collect = (chunk: Buffer): void => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        lines.push(line.slice(0, 400));
        const ready = /^ready (\S+)/.exec(line);
        if (ready) resolve({ child, url: ready[1]!, lines });
      }
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('exit', (code) => reject(new Error(`the process exited (${code}): ${lines.join('\n')}`)));
  });
}

/**
 * A confirmed high-risk action whose tool run is cut short by its worker process dying (SIGKILL),
 * then the product started again on the same data: the tool's effect happens exactly once and the
 * action's outcome is recorded.
 */
describe('a worker process killed in the middle of a confirmed action’s tool', function () {
  this.timeout(120_000);
  let dataDir: string;
  let app: TestApp | null = null;
  let child: ChildProcess | null = null;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'archivist-tool-crash-'));
  });
  afterEach(async () => {
    child?.kill('SIGKILL');
    await app?.stop();
    app = null;
    await rm(dataDir, { recursive: true, force: true });
  });

  const count = async (stream: string, type: string): Promise<number> =>
    (await app!.runtime.eventStore.readStream(stream)).filter((event) => event.type === type).length;

  /** Alice, one document, and her pending action to delete it; then the data folder is free again. */
  async function prepare(): Promise<{ alice: TestUser; docId: string; actionId: string }> {
    app = await startToolsApp(dataDir);
    const alice = await addTestUser(app, 'alice');
    const { docId, actionId } = await requestDocumentDeletion(app, alice);
    await app.stop();
    app = null;
    return { alice, docId, actionId };
  }

  /** Confirms in the crashing process, waits for `signal` on its output, and kills it. */
  async function confirmAndKill(
    crashAt: 'before-effect' | 'after-effect',
    alice: TestUser,
    actionId: string,
  ): Promise<void> {
    const started = await startCrashingProcess(dataDir, crashAt);
    child = started.child;
    const signal = crashAt === 'after-effect' ? 'tool effect done' : 'tool started';
    // The confirmation waits for the outcome, which never comes: it is cut off by the kill.
    const confirming = fetch(`${started.url}${API}.confirm_action`, {
      method: 'POST',
      headers: { Authorization: alice.authorization, 'Content-Type': 'application/json' },
      body: JSON.stringify({ action_id: actionId }),
    }).catch(() => null);
    await eventually(() => (started.lines.includes(signal) ? true : undefined), 30_000, signal);
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    child = null;
    await confirming;
  }

  /** The product again, on the same data: the interrupted task is taken up and the action settled. */
  async function restartAndSettle(actionId: string): Promise<void> {
    app = await startToolsApp(dataDir);
    await eventually(
      async () =>
        (await count(`action-${actionId}`, 'ActionExecuted')) +
          (await count(`action-${actionId}`, 'ActionFailed')) >
        0
          ? true
          : undefined,
      30_000,
      'the action settled',
    );
  }

  for (const crashAt of ['after-effect', 'before-effect'] as const) {
    it(`deletes the document once and records the action as executed (killed ${crashAt.replace('-', ' the ')})`, async () => {
      const { alice, docId, actionId } = await prepare();
      await confirmAndKill(crashAt, alice, actionId);
      await restartAndSettle(actionId);

      expect(await count(`purged-document-${docId}`, 'DocumentDeleted')).to.equal(1);
      expect(await count(`action-${actionId}`, 'ActionConfirmed')).to.equal(1);
      expect(await count(`action-${actionId}`, 'ActionExecuted')).to.equal(1);
      expect(await count(`action-${actionId}`, 'ActionFailed')).to.equal(0);
      const tasks = await tasksOfAction(app!.runtime.eventStore, actionId);
      expect(tasks).to.have.length(1);
      expect(await count(`task-${tasks[0]}`, 'TaskCompleted')).to.equal(1);

      // The owner reads the recorded result: confirming again runs nothing and is refused with it.
      const confirmed = await decidedOutcome(app!, alice, actionId);
      expect(confirmed).to.deep.include({ action_id: actionId, status: 'executed' });
      expect(confirmed['result']).to.deep.include({ doc_id: docId, deleted: true });

      // Another restart changes nothing.
      await app!.stop();
      app = await startToolsApp(dataDir);
      await app.runtime.reactors.waitFor(await app.runtime.eventStore.headPosition(), 5_000);
      expect(await count(`purged-document-${docId}`, 'DocumentDeleted')).to.equal(1);
      expect(await count(`action-${actionId}`, 'ActionExecuted')).to.equal(1);
    });
  }
});
