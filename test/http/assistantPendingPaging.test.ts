import { expect } from 'chai';
import { resetAssistantSettings } from '../support/assistantSettings.js';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const API = '/api/method/assistant.api';
type Page = {
  actions: Array<{ action_id: string; status: string }>;
  count: number;
  page: number;
  page_size: number;
  total: number;
  has_more: boolean;
};

describe('Assistant API: list_pending_actions pages like list_conversations', function () {
  this.timeout(30_000);
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  const requested: string[] = [];
  before(async () => {
    app = await startTestApp();
    await resetAssistantSettings(app.runtime);
    alice = await addTestUser(app, 'alice');
    bob = await addTestUser(app, 'bob');
    // 25 pending actions of alice (high-risk calls), one of bob.
    for (let i = 0; i < 26; i += 1) {
      const user = i === 25 ? bob : alice;
      const response = await app.http
        .post(`${API}.execute_tool`)
        .set('Authorization', user.authorization)
        .send({ tool_name: 'cancel_task', params: { task_id: `task-${i}` } })
        .expect(200);
      const data = (
        response.body as { message: { data: { action_id: string; requires_confirmation: boolean } } }
      ).message.data;
      expect(data.requires_confirmation).to.equal(true);
      if (user === alice) requested.push(data.action_id);
    }
  });
  after(() => app.stop());

  const list = (user: TestUser, query: Record<string, string | number> = {}) =>
    app.http.get(`${API}.list_pending_actions`).query(query).set('Authorization', user.authorization);
  const page = (response: { body: unknown }) => (response.body as { message: { data: Page } }).message.data;

  it('answers page 1 of 20 by default, oldest first, with the total', async () => {
    const first = page(await list(alice).expect(200));
    expect(first).to.include({ page: 1, page_size: 20, total: 25, count: 20, has_more: true });
    expect(first.actions.map((action) => action.action_id)).to.deep.equal(requested.slice(0, 20));
  });

  it('pages through every pending action once, in order', async () => {
    const seen: string[] = [];
    for (let n = 1; n <= 3; n += 1) {
      const current = page(await list(alice, { page: n, page_size: 10 }).expect(200));
      expect(current).to.include({ page: n, page_size: 10, total: 25, has_more: n < 3 });
      seen.push(...current.actions.map((action) => action.action_id));
    }
    expect(seen).to.deep.equal(requested);
    const beyond = page(await list(alice, { page: 4, page_size: 10 }).expect(200));
    expect(beyond).to.include({ count: 0, total: 25, has_more: false });
  });

  it('counts only the current user’s actions, and leaves out decided ones', async () => {
    expect(page(await list(bob).expect(200))).to.include({ total: 1, count: 1 });
    await app.http
      .post(`${API}.reject_action`)
      .set('Authorization', alice.authorization)
      .send({ action_id: requested[0] })
      .expect(200);
    const after = page(await list(alice, { page_size: 100 }).expect(200));
    expect(after).to.include({ total: 24, count: 24, has_more: false });
    expect(after.actions.map((action) => action.action_id)).to.not.include(requested[0]);
  });

  it('refuses a page below 1 or a page_size above 100 (422)', async () => {
    const queries: Array<Record<string, number>> = [{ page: 0 }, { page_size: 101 }, { page_size: 0 }];
    for (const query of queries) {
      const response = await list(alice, query).expect(422);
      expect((response.body as { message: { error: { type: string } } }).message.error.type).to.equal(
        'validation_error',
      );
    }
  });
});
