import { expect } from 'chai';
import { resetAssistantSettings } from '../support/assistantSettings.js';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { documentSweeper, uniqueName } from '../support/cluster.js';
import { eventually, startTestApp, type TestApp } from '../support/testApp.js';

const API = '/api/method/assistant.api';
type Message = { success: boolean; data: Record<string, unknown>; error?: Record<string, unknown> };
type Action = Record<string, unknown>;

/**
 * Approvals by someone else: `tools.approval` names, per tool, who confirms a call that waits for
 * confirmation. The requester always sees (and may withdraw) their own; an approver sees it in their
 * `list_pending_actions` with the requester named; anyone else is told it does not exist.
 */
describe('Assistant API approvals by someone else (tools.approval)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let root: TestUser;
  const stored = documentSweeper();
  const caller = { actorId: 'test', correlationId: 'approvals' };

  before(async () => {
    app = await startTestApp();
    await resetAssistantSettings(app.runtime);
    alice = await addTestUser(app, 'alice');
    bob = await addTestUser(app, 'bob');
    root = await addTestUser(app, 'root', { admin: true });
  });
  after(async () => {
    await app.runtime.settings.change('tools.approval', null, 'cli', caller);
    await stored.sweep((docId) => app.http.delete(`/api/v1/documents/${docId}`).expect(200));
    await app.stop();
  });

  const messageOf = (response: { body: unknown }) => (response.body as { message: Message }).message;
  const call = (user: TestUser, method: string, body: object) =>
    app.http.post(`${API}.${method}`).set('Authorization', user.authorization).send(body);
  const pendingOf = async (user: TestUser): Promise<Action[]> => {
    const response = await app.http
      .get(`${API}.list_pending_actions`)
      .query({ page_size: 100 })
      .set('Authorization', user.authorization)
      .expect(200);
    return messageOf(response).data['actions'] as Action[];
  };
  const listed = async (user: TestUser, actionId: string): Promise<Action | undefined> =>
    (await pendingOf(user)).find((action) => action['action_id'] === actionId);
  const errorOf = (response: { body: unknown }) => messageOf(response).error!;

  async function uploadDocument(title: string): Promise<string> {
    const text = `# ${title}\n\nThe ${title} describes how the river gauges are read each morning.\n`;
    const response = await app.http
      .post('/api/v1/upload')
      .attach('file', Buffer.from(text), `${title}.md`)
      .expect(200);
    return stored.keep(response.body as { doc_id: string }).doc_id;
  }
  async function requestDeletion(user: TestUser, docId: string): Promise<Record<string, unknown>> {
    const response = await call(user, 'execute_tool', {
      tool_name: 'delete_document',
      params: { doc_id: docId },
    }).expect(200);
    expect(messageOf(response).data).to.include({ success: false, requires_confirmation: true });
    return messageOf(response).data;
  }
  const documentExists = async (docId: string): Promise<boolean> =>
    (await app.http.get(`/api/v1/documents/${docId}`)).status === 200;
  const decisions = async (actionId: string) =>
    (await app.runtime.eventStore.readStream(`action-${actionId}`))
      .filter((event) => event.type === 'ActionConfirmed' || event.type === 'ActionRejected')
      .map((event) => ({ type: event.type, by: (event.data as { by?: string }).by }));

  describe('admin', () => {
    before(() => app.runtime.settings.change('tools.approval', { delete_document: 'admin' }, 'cli', caller));

    it('waits for an administrator: the requester cannot confirm it, another user does not see it', async () => {
      const docId = await uploadDocument(uniqueName('gaugebook'));
      const requested = await requestDeletion(alice, docId);
      const actionId = requested['action_id'] as string;
      expect(requested).to.include({ approval: 'admin' });

      expect(await listed(alice, actionId)).to.deep.include({
        requested_by: alice.name,
        approval: 'admin',
        can_confirm: false,
        status: 'pending',
      });
      const refused = await call(alice, 'confirm_action', { action_id: actionId }).expect(403);
      expect(errorOf(refused)).to.include({ type: 'approval_required', status_code: 403 });
      expect(String(errorOf(refused)['message'])).to.include('an administrator');

      expect(await listed(bob, actionId)).to.equal(undefined);
      await call(bob, 'confirm_action', { action_id: actionId }).expect(404);
      await call(bob, 'reject_action', { action_id: actionId }).expect(404);
      expect(await documentExists(docId)).to.equal(true);

      expect(await listed(root, actionId)).to.deep.include({
        requested_by: alice.name,
        approval: 'admin',
        can_confirm: true,
        tool_name: 'delete_document',
        params: { doc_id: docId },
      });
      const confirmed = await call(root, 'confirm_action', { action_id: actionId }).expect(200);
      expect(messageOf(confirmed).data).to.deep.include({ success: true, status: 'executed' });
      expect(await eventually(async () => ((await documentExists(docId)) ? undefined : true))).to.equal(true);
      expect(await decisions(actionId)).to.deep.equal([{ type: 'ActionConfirmed', by: root.name }]);
      expect(await listed(root, actionId)).to.equal(undefined);
      expect(await listed(alice, actionId)).to.equal(undefined);
    });

    it('lets its requester withdraw it', async () => {
      const docId = await uploadDocument(uniqueName('tidetable'));
      const actionId = (await requestDeletion(alice, docId))['action_id'] as string;
      await call(alice, 'reject_action', { action_id: actionId, reason: 'asked by mistake' }).expect(200);
      expect(await decisions(actionId)).to.deep.equal([{ type: 'ActionRejected', by: alice.name }]);
      expect(await listed(root, actionId)).to.equal(undefined);
      expect(await documentExists(docId)).to.equal(true);
    });

    it('says in a chat turn that an administrator must confirm the deletion', async () => {
      const title = uniqueName('Weirkeeper Almanac');
      const docId = await uploadDocument(title);
      const response = await call(alice, 'chat_with_tools', {
        user_message: `Delete the document about ${title}`,
      }).expect(200);
      const data = messageOf(response).data;
      const deletion = (data['tool_calls'] as Array<{ name: string; status: string }>).find(
        (each) => each.name === 'delete_document',
      );
      expect(deletion).to.include({ status: 'pending_confirmation' });
      expect(String(data['response'])).to.include('once an administrator confirms it');
      const action = (await pendingOf(root)).find(
        (each) => (each['params'] as { doc_id?: string }).doc_id === docId,
      );
      expect(action).to.include({ requested_by: alice.name, approval: 'admin' });
      await call(root, 'reject_action', { action_id: action!['action_id'], reason: 'kept' }).expect(200);
      expect(await documentExists(docId)).to.equal(true);
    });
  });

  describe('other_user', () => {
    before(() =>
      app.runtime.settings.change('tools.approval', { delete_document: 'other_user' }, 'cli', caller),
    );

    it('waits for any user but its requester, who sees it and cannot confirm it', async () => {
      const docId = await uploadDocument(uniqueName('floodlog'));
      const actionId = (await requestDeletion(alice, docId))['action_id'] as string;
      expect(await listed(alice, actionId)).to.deep.include({ approval: 'other_user', can_confirm: false });
      const refused = await call(alice, 'confirm_action', { action_id: actionId }).expect(403);
      expect(errorOf(refused)).to.include({ type: 'approval_required' });

      expect(await listed(bob, actionId)).to.deep.include({
        requested_by: alice.name,
        approval: 'other_user',
        can_confirm: true,
      });
      const rejected = await call(bob, 'reject_action', {
        action_id: actionId,
        reason: 'still needed',
      }).expect(200);
      expect(messageOf(rejected).data).to.deep.include({ status: 'rejected', reason: 'still needed' });
      expect(await decisions(actionId)).to.deep.equal([{ type: 'ActionRejected', by: bob.name }]);
      expect(await listed(alice, actionId)).to.equal(undefined);
      expect(await documentExists(docId)).to.equal(true);

      const again = (await requestDeletion(alice, docId))['action_id'] as string;
      const confirmed = await call(bob, 'confirm_action', { action_id: again }).expect(200);
      expect(messageOf(confirmed).data).to.deep.include({ success: true, status: 'executed' });
      expect(await decisions(again)).to.deep.equal([{ type: 'ActionConfirmed', by: bob.name }]);
    });
  });

  it('by default (self) leaves the decision to the requester alone', async () => {
    await app.runtime.settings.change('tools.approval', null, 'cli', caller);
    const docId = await uploadDocument(uniqueName('rainfall'));
    const requested = await requestDeletion(alice, docId);
    const actionId = requested['action_id'] as string;
    expect(requested).to.include({ approval: 'self' });
    expect(await listed(root, actionId)).to.equal(undefined);
    await call(root, 'confirm_action', { action_id: actionId }).expect(404);
    expect(await listed(alice, actionId)).to.deep.include({ approval: 'self', can_confirm: true });
    await call(alice, 'reject_action', { action_id: actionId }).expect(200);
  });
});
