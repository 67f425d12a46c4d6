import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { resetAssistantSettings } from '../support/assistantSettings.js';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { clusterMode, documentSweeper } from '../support/cluster.js';
import { eventually, type TestApp } from '../support/testApp.js';
import { createTestClock, startToolsApp } from '../support/toolsApp.js';
import { uploadTextFixtures } from '../support/uploadTextFixtures.js';
import { tasksOfAction } from '../support/actionTasks.js';

const API = '/api/method/assistant.api';
type Body = {
  message: { success: boolean; data: Record<string, unknown>; error?: Record<string, unknown> };
};

function expectError(body: Body, status: number, type: string): void {
  expect(body.message).to.include({ success: false, data: null });
  expect(body.message.error).to.include({ type, status_code: status });
}

describe('Assistant API tools and pending actions (real SQLite stores)', function () {
  this.timeout(60_000);
  const clock = createTestClock();
  let dataDir: string;
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let docIds: string[];
  const stored = documentSweeper();

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'archivist-tools-'));
    app = await startToolsApp(dataDir, { clock: clock.now });
    await resetAssistantSettings(app.runtime);
    alice = await addTestUser(app, 'alice');
    bob = await addTestUser(app, 'bob');
    const uploaded = stored.keep(
      await uploadTextFixtures(app, 'readme.md', 'guide.rst', 'article.html', 'inventory.csv'),
    );
    const listed = await execute(alice, 'list_documents', {}).expect(200);
    const result = data(listed)['result'] as { documents: Array<{ doc_id: string }> };
    docIds = uploaded.map((upload) => upload['doc_id'] as string);
    // The four uploads (newest first), and in a cluster every other suite's documents after them.
    const listedIds = result.documents.map((doc) => doc.doc_id);
    if (clusterMode()) expect(listedIds.slice(0, 4)).to.have.members(docIds);
    else expect(listedIds).to.have.members(docIds);
  });
  after(async () => {
    await stored.sweep((docId) => app.http.delete(`/api/v1/documents/${docId}`).expect(200));
    await app.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const data = (response: { body: unknown }) => (response.body as Body).message.data;
  const get = (user: TestUser | null, name: string, query: object = {}) => {
    const request = app.http.get(`${API}.${name}`).query(query);
    return user ? request.set('Authorization', user.authorization) : request;
  };
  const post = (user: TestUser | null, name: string, body: object) => {
    const request = app.http.post(`${API}.${name}`);
    return (user ? request.set('Authorization', user.authorization) : request).send(body);
  };
  function execute(user: TestUser | null, tool: string, params: object) {
    return post(user, 'execute_tool', { tool_name: tool, params });
  }
  async function requestDeletion(user: TestUser, docId: string): Promise<string> {
    const response = await execute(user, 'delete_document', { doc_id: docId }).expect(200);
    expect(data(response)).to.include({ success: false, requires_confirmation: true });
    return data(response)['action_id'] as string;
  }
  async function documentExists(docId: string): Promise<boolean> {
    const response = await execute(alice, 'get_document', { doc_id: docId }).expect(200);
    return data(response)['success'] as boolean;
  }
  async function count(stream: string, type: string): Promise<number> {
    const events = await app.runtime.eventStore.readStream(stream);
    return events.filter((event) => event.type === type).length;
  }

  describe('get_available_tools', () => {
    it('lists every tool with its category and risk level, without schemas by default', async () => {
      const response = await get(alice, 'get_available_tools').expect(200);
      const tools = data(response)['tools'] as Array<Record<string, unknown>>;
      const names = tools.map((tool) => tool['name']);
      expect(names).to.include.members([
        'search_knowledge',
        'query_knowledge',
        'list_documents',
        'get_document',
        'delete_document',
        'scrape_url',
        'knowledge_stats',
        'list_tasks',
        'cancel_task',
        'search_conversations',
      ]);
      expect(data(response)['count']).to.equal(tools.length);
      expect(tools.find((tool) => tool['name'] === 'delete_document')).to.include({
        risk_level: 'high',
        requires_confirmation: true,
      });
      expect(tools.find((tool) => tool['name'] === 'search_knowledge')).to.include({ risk_level: 'low' });
      expect(tools.every((tool) => !('parameters' in tool))).to.equal(true);
    });

    it('includes the JSON schemas when asked, and filters by category', async () => {
      const withSchema = await get(alice, 'get_available_tools', { include_schema: true }).expect(200);
      const search = (data(withSchema)['tools'] as Array<Record<string, unknown>>).find(
        (tool) => tool['name'] === 'search_knowledge',
      )!;
      expect(search['parameters']).to.deep.include({ type: 'object', required: ['query'] });
      const tasks = await get(alice, 'get_available_tools', { category: 'tasks' }).expect(200);
      const names = (data(tasks)['tools'] as Array<Record<string, unknown>>).map((tool) => tool['name']);
      expect(names).to.have.members(['list_tasks', 'cancel_task']);
      const bad = await get(alice, 'get_available_tools', { category: 'weather' }).expect(422);
      expectError(bad.body as Body, 422, 'validation_error');
    });

    it('needs credentials', async () => {
      expectError(
        (await get(null, 'get_available_tools').expect(401)).body as Body,
        401,
        'authentication_required',
      );
    });
  });

  describe('execute_tool', () => {
    it('runs a low-risk tool in a worker over the real knowledge base and answers its result', async () => {
      const response = await execute(alice, 'search_knowledge', { query: 'inventory', top_k: 3 }).expect(200);
      const body = data(response);
      expect(body['success']).to.equal(true);
      expect(body['execution_time_ms']).to.be.a('number');
      const results = (body['result'] as { results: Array<{ doc_id: string }> }).results;
      expect(results).to.have.length.within(1, 3);
      expect(docIds).to.include(results[0]!.doc_id);
      // It ran as a task of the tool job type, which the worker completed.
      const taskId = body['task_id'] as string;
      expect(await count(`task-${taskId}`, 'TaskCompleted')).to.equal(1);
      const stats = await execute(alice, 'knowledge_stats', {}).expect(200);
      const documents = (await app.http.get('/api/v1/documents').expect(200)).body.total as number;
      expect(data(stats)['result']).to.include({ documents: clusterMode() ? documents : 4 });
    });

    it('answers a failure of the tool itself as success false with its reason', async () => {
      const response = await execute(alice, 'get_document', { doc_id: 'no-such-document' }).expect(200);
      expect(data(response)).to.include({ success: false, result: null });
      expect(data(response)['error']).to.include({ type: 'document_not_found' });
    });

    it('refuses invalid params with 422 naming each field, and runs nothing', async () => {
      const response = await execute(alice, 'search_knowledge', { top_k: 'many', extra: 1 }).expect(422);
      const body = response.body as Body;
      expectError(body, 422, 'validation_error');
      const fields = (body.message.error!['errors'] as Array<{ field: string }>).map((issue) => issue.field);
      expect(fields).to.include.members(['params.query', 'params.top_k', 'params.extra']);
      const notAnObject = await post(alice, 'execute_tool', {
        tool_name: 'list_documents',
        params: [1],
      }).expect(422);
      expectError(notAnObject.body as Body, 422, 'validation_error');
    });

    it('answers an unknown tool 404 and an anonymous caller 401', async () => {
      expectError((await execute(alice, 'format_disk', {}).expect(404)).body as Body, 404, 'tool_not_found');
      expectError(
        (await execute(null, 'list_documents', {}).expect(401)).body as Body,
        401,
        'authentication_required',
      );
    });
  });

  describe("tools over the caller's own data", () => {
    it("lists the caller's tasks only, and cancels none of another user's", async () => {
      const bobs = await execute(bob, 'knowledge_stats', {}).expect(200);
      const bobTask = data(bobs)['task_id'] as string;
      const listed = await execute(alice, 'list_tasks', { limit: 100 }).expect(200);
      const ids = (data(listed)['result'] as { tasks: Array<{ task_id: string }> }).tasks.map(
        (t) => t.task_id,
      );
      expect(ids).to.not.include(bobTask);
      const own = await execute(bob, 'list_tasks', {}).expect(200);
      const bobIds = (data(own)['result'] as { tasks: Array<{ task_id: string }> }).tasks.map(
        (t) => t.task_id,
      );
      expect(bobIds).to.include(bobTask);

      const requested = await execute(alice, 'cancel_task', { task_id: bobTask }).expect(200);
      expect(data(requested)).to.include({ requires_confirmation: true });
      const actionId = data(requested)['action_id'] as string;
      const confirmed = await post(alice, 'confirm_action', { action_id: actionId }).expect(200);
      expect(data(confirmed)).to.deep.include({ success: false, status: 'failed' });
      expect((data(confirmed)['error'] as { message: string }).message).to.match(/does not exist/);
      expect(await count(`action-${actionId}`, 'ActionFailed')).to.equal(1);
    });

    it("searches the caller's conversations only", async () => {
      const created = await post(alice, 'create_conversation', { title: 'Zanzibar itinerary' }).expect(200);
      const conversationId = data(created)['conversation_id'] as string;
      const mine = await execute(alice, 'search_conversations', { query: 'zanzibar' }).expect(200);
      const results = (data(mine)['result'] as { results: Array<{ conversation_id: string }> }).results;
      expect(results.map((hit) => hit.conversation_id)).to.deep.equal([conversationId]);
      const theirs = await execute(bob, 'search_conversations', { query: 'zanzibar' }).expect(200);
      expect(data(theirs)['result']).to.deep.equal({ results: [] });
    });
  });

  describe('pending actions', () => {
    it('turns a high-risk call into a pending action of its owner, and runs nothing', async () => {
      const actionId = await requestDeletion(alice, docIds[0]!);
      expect(await documentExists(docIds[0]!)).to.equal(true);
      expect(await tasksOfAction(app.runtime.eventStore, actionId)).to.deep.equal([]);
      const listed = await get(alice, 'list_pending_actions').expect(200);
      const actions = data(listed)['actions'] as Array<Record<string, unknown>>;
      expect(actions.find((action) => action['action_id'] === actionId)).to.deep.include({
        tool_name: 'delete_document',
        params: { doc_id: docIds[0] },
        risk_level: 'high',
        status: 'pending',
      });
    });

    it('is seen, confirmed and rejected by its owner only (404 to others, 401 anonymous)', async () => {
      const actionId = await requestDeletion(alice, docIds[1]!);
      const bobs = await get(bob, 'list_pending_actions').expect(200);
      expect(data(bobs)).to.deep.include({ actions: [], count: 0, total: 0, has_more: false });
      expectError(
        (await post(bob, 'confirm_action', { action_id: actionId }).expect(404)).body as Body,
        404,
        'action_not_found',
      );
      expectError(
        (await post(bob, 'reject_action', { action_id: actionId, reason: 'mine now' }).expect(404))
          .body as Body,
        404,
        'action_not_found',
      );
      expectError(
        (await post(null, 'confirm_action', { action_id: actionId }).expect(401)).body as Body,
        401,
        'authentication_required',
      );
      expectError(
        (await get(null, 'list_pending_actions').expect(401)).body as Body,
        401,
        'authentication_required',
      );
      expectError(
        (await post(alice, 'confirm_action', { action_id: 'nope' }).expect(404)).body as Body,
        404,
        'action_not_found',
      );
      expect(await documentExists(docIds[1]!)).to.equal(true);
      // Still pending for alice.
      const listed = await get(alice, 'list_pending_actions').expect(200);
      expect(
        (data(listed)['actions'] as Array<Record<string, unknown>>).map((a) => a['action_id']),
      ).to.include(actionId);
    });

    it('runs a confirmed action once and answers its result; confirming again is refused with that outcome', async () => {
      const docId = docIds[0]!;
      const listed = await get(alice, 'list_pending_actions').expect(200);
      const actionId = (data(listed)['actions'] as Array<Record<string, unknown>>).find(
        (action) => (action['params'] as { doc_id: string }).doc_id === docId,
      )!['action_id'] as string;
      const first = await post(alice, 'confirm_action', { action_id: actionId }).expect(200);
      expect(data(first)).to.deep.include({ success: true, action_id: actionId, status: 'executed' });
      expect(data(first)['result']).to.deep.include({ doc_id: docId, deleted: true });
      expect(await eventually(async () => ((await documentExists(docId)) ? undefined : true))).to.equal(true);
      const again = (await post(alice, 'confirm_action', { action_id: actionId }).expect(409)).body as Body;
      expectError(again, 409, 'action_confirmed');
      expect(again.message.error!['detail']).to.deep.include({
        action_id: actionId,
        status: 'executed',
        task_id: data(first)['task_id'],
        result: data(first)['result'],
      });
      expect(await count(`action-${actionId}`, 'ActionConfirmed')).to.equal(1);
      expect(await count(`action-${actionId}`, 'ActionExecuted')).to.equal(1);
      const [taskId, ...others] = await tasksOfAction(app.runtime.eventStore, actionId);
      expect(others).to.deep.equal([]);
      expect(await count(`task-${taskId}`, 'TaskStarted')).to.equal(1);
      const after = await get(alice, 'list_pending_actions').expect(200);
      expect(
        (data(after)['actions'] as Array<Record<string, unknown>>).map((a) => a['action_id']),
      ).not.to.include(actionId);
    });

    it('runs an action confirmed twice at once only once', async () => {
      const docId = docIds[2]!;
      const actionId = await requestDeletion(alice, docId);
      const [one, two] = await Promise.all([
        post(alice, 'confirm_action', { action_id: actionId }),
        post(alice, 'confirm_action', { action_id: actionId }),
      ]);
      // One runs it; the other finds it confirmed (or executed, if it came that late) and is refused.
      const [won, lost] = one.status === 200 ? [one, two] : [two, one];
      expect([won.status, lost.status]).to.deep.equal([200, 409]);
      expect(data(won)).to.deep.include({ success: true, status: 'executed' });
      expectError(lost.body as Body, 409, 'action_confirmed');
      expect((lost.body as Body).message.error!['detail']).to.deep.include({
        action_id: actionId,
        task_id: data(won)['task_id'],
      });
      expect(await count(`action-${actionId}`, 'ActionConfirmed')).to.equal(1);
      expect(await count(`action-${actionId}`, 'ActionExecuted')).to.equal(1);
      const tasks = await tasksOfAction(app.runtime.eventStore, actionId);
      expect(tasks).to.have.length(1);
      expect(await count(`task-${tasks[0]}`, 'TaskStarted')).to.equal(1);
    });

    it('rejects an action with a reason: nothing runs, and it cannot be confirmed afterwards', async () => {
      const docId = docIds[1]!;
      const actionId = await requestDeletion(alice, docId);
      const rejected = await post(alice, 'reject_action', {
        action_id: actionId,
        reason: 'wrong document',
      }).expect(200);
      expect(data(rejected)).to.deep.equal({
        action_id: actionId,
        status: 'rejected',
        reason: 'wrong document',
      });
      const again = (await post(alice, 'reject_action', { action_id: actionId }).expect(409)).body as Body;
      expectError(again, 409, 'action_rejected');
      expect(again.message.error!['detail']).to.deep.include({
        status: 'rejected',
        reason: 'wrong document',
      });
      expectError(
        (await post(alice, 'confirm_action', { action_id: actionId }).expect(409)).body as Body,
        409,
        'action_rejected',
      );
      const events = await app.runtime.eventStore.readStream(`action-${actionId}`);
      expect(events.map((event) => event.type)).to.deep.equal(['ActionPending', 'ActionRejected']);
      expect(events[1]!.data).to.deep.equal({ actionId, reason: 'wrong document', by: alice.name });
      const listed = await get(alice, 'list_pending_actions').expect(200);
      expect(
        (data(listed)['actions'] as Array<Record<string, unknown>>).map((a) => a['action_id']),
      ).not.to.include(actionId);
      expect(await documentExists(docId)).to.equal(true);
    });

    it('expires a pending action after ACTION_EXPIRY_MINUTES (an injected clock): it cannot be confirmed', async () => {
      const docId = docIds[3]!;
      const actionId = await requestDeletion(alice, docId);
      clock.skipMs += 61 * 60_000;
      try {
        const listed = await get(alice, 'list_pending_actions').expect(200);
        expect(
          (data(listed)['actions'] as Array<Record<string, unknown>>).map((a) => a['action_id']),
        ).not.to.include(actionId);
        expectError(
          (await post(alice, 'confirm_action', { action_id: actionId }).expect(409)).body as Body,
          409,
          'action_expired',
        );
        expectError(
          (await post(alice, 'confirm_action', { action_id: actionId }).expect(409)).body as Body,
          409,
          'action_expired',
        );
        const events = await app.runtime.eventStore.readStream(`action-${actionId}`);
        expect(events.map((event) => event.type)).to.deep.equal(['ActionPending', 'ActionExpired']);
        expect(await documentExists(docId)).to.equal(true);
      } finally {
        clock.skipMs = 0;
      }
    });
  });
});
