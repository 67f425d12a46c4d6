import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { actionAggregate, conversationAggregate, taskAggregate } from '../../src/commands/aggregates.js';
import { createCommandService } from '../../src/commands/commandService.js';
import { actionWorkflow } from '../../src/tools/actionWorkflow.js';
import { addTestUser } from '../support/assistantUsers.js';
import { eventually, type TestApp } from '../support/testApp.js';
import { startToolsApp } from '../support/toolsApp.js';
import { decidedOutcome, requestDocumentDeletion } from '../support/pendingDeletion.js';
import { tasksOfAction } from '../support/actionTasks.js';

describe('a confirmed action while the worker is down', function () {
  this.timeout(60_000);
  let dataDir: string;
  let app: TestApp | null = null;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'archivist-action-restart-'));
  });
  after(async () => {
    await app?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const count = async (stream: string, type: string): Promise<number> =>
    (await app!.runtime.eventStore.readStream(stream)).filter((event) => event.type === type).length;

  it('runs once when the worker comes back, and never again after another restart or a repeated reaction', async () => {
    // 1. A full process: the action reactor is deployed (its checkpoint exists); a pending action.
    app = await startToolsApp(dataDir);
    const alice = await addTestUser(app, 'alice');
    const { docId, actionId } = await requestDocumentDeletion(app, alice);
    await app.stop();

    // 2. The API without a worker: the confirmation is recorded, nothing runs.
    app = await startToolsApp(dataDir, { roles: ['api', 'projector'] });
    const caller = { actorId: 'user:alice', correlationId: 'confirm' };
    const waiting = app.runtime.tools.confirm(
      { name: 'alice', admin: false },
      actionId,
      caller,
      AbortSignal.timeout(300),
    );
    await waiting.then(
      () => expect.fail('nothing should have run without a worker'),
      (error: Error) => expect(error.name).to.be.oneOf(['TimeoutError', 'AbortError']),
    );
    expect(await count(`action-${actionId}`, 'ActionConfirmed')).to.equal(1);
    expect(await tasksOfAction(app.runtime.eventStore, actionId)).to.deep.equal([]);
    await app.stop();

    // 3. The worker is back: the reactor resumes from its checkpoint and the action runs.
    app = await startToolsApp(dataDir);
    await eventually(
      async () => ((await count(`action-${actionId}`, 'ActionExecuted')) === 1 ? true : undefined),
      20_000,
    );
    const confirmed = await decidedOutcome(app, alice, actionId);
    expect(confirmed).to.deep.include({ action_id: actionId, status: 'executed' });
    expect(confirmed['result']).to.deep.include({ doc_id: docId, deleted: true });

    // 4. The same reaction again (a crash after its effect, before its checkpoint) does nothing more.
    const confirmedEvent = (await app.runtime.eventStore.readStream(`action-${actionId}`)).find(
      (event) => event.type === 'ActionConfirmed',
    )!;
    const reactor = actionWorkflow({
      actions: createCommandService(actionAggregate, {
        eventStore: app.runtime.eventStore,
        clock: () => new Date(),
      }),
      tasks: createCommandService(taskAggregate, {
        eventStore: app.runtime.eventStore,
        clock: () => new Date(),
      }),
      conversations: createCommandService(conversationAggregate, {
        eventStore: app.runtime.eventStore,
        clock: () => new Date(),
      }),
    });
    await reactor.react(confirmedEvent);
    await app.stop();

    // 5. Another restart: still one task, one attempt, one outcome.
    app = await startToolsApp(dataDir);
    await app.runtime.reactors.waitFor(await app.runtime.eventStore.headPosition(), 5_000);
    const tasks = await tasksOfAction(app.runtime.eventStore, actionId);
    expect(tasks).to.have.length(1);
    expect(await count(`task-${tasks[0]}`, 'TaskStarted')).to.equal(1);
    expect(await count(`action-${actionId}`, 'ActionExecuted')).to.equal(1);
    expect(await count(`action-${actionId}`, 'ActionFailed')).to.equal(0);
  });
});
