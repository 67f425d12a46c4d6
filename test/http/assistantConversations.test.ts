import { expect } from 'chai';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { clusterMode } from '../support/cluster.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const API = '/api/method/assistant.api';
type Body = { message: { success: boolean; data: Record<string, unknown>; error?: Record<string, unknown> } };

function expectError(body: Body, status: number, type: string): void {
  expect(body.message).to.include({ success: false, data: null });
  expect(body.message.error).to.include({ type, status_code: status });
}

describe('Assistant API conversations (real SQLite stores)', function () {
  this.timeout(30_000);
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let admin: TestUser;
  before(async () => {
    app = await startTestApp({ env: { EVENT_STORE: 'file' } });
    alice = await addTestUser(app, 'alice');
    bob = await addTestUser(app, 'bob');
    admin = await addTestUser(app, 'root', { admin: true });
  });
  after(() => app.stop());

  async function create(user: TestUser, title?: string): Promise<string> {
    const response = await app.http
      .post(`${API}.create_conversation`)
      .set('Authorization', user.authorization)
      .send(title === undefined ? {} : { title })
      .expect(200);
    return (response.body as Body).message.data['conversation_id'] as string;
  }

  async function say(
    user: TestUser,
    conversationId: string,
    content: string,
    role: 'user' | 'assistant' = 'user',
  ) {
    const caller = { actorId: `user:${user.name}`, correlationId: 'test' };
    const outcome = await app.runtime.conversations.append(
      user.name,
      conversationId,
      { role, content },
      caller,
    );
    await app.runtime.projections.waitFor(outcome.position);
    return outcome;
  }

  const get = (user: TestUser | null, name: string, query: object = {}) => {
    const request = app.http.get(`${API}.${name}`).query(query);
    return user ? request.set('Authorization', user.authorization) : request;
  };

  describe('create_conversation', () => {
    it('creates an active conversation with a title, or without one', async () => {
      const response = await app.http
        .post(`${API}.create_conversation`)
        .set('Authorization', alice.authorization)
        .send({ title: 'Holiday plans' })
        .expect(200);
      const data = (response.body as Body).message.data;
      expect(data).to.include({
        title: 'Holiday plans',
        status: 'Active',
        message_count: 0,
        deleted_at: null,
      });
      expect(data['conversation_id']).to.be.a('string').and.not.empty;
      // Read your write: it is listed at once.
      const listed = await get(alice, 'list_conversations').expect(200);
      const ids = (
        (listed.body as Body).message.data['conversations'] as Array<{ conversation_id: string }>
      ).map((conversation) => conversation.conversation_id);
      expect(ids).to.include(data['conversation_id']);
      const untitled = await app.http
        .post(`${API}.create_conversation`)
        .set('Authorization', alice.authorization)
        .expect(200);
      expect((untitled.body as Body).message.data).to.include({ title: null, status: 'Active' });
    });

    it('rejects a title of the wrong type or too long (422) and a malformed body (400)', async () => {
      const wrong = await app.http
        .post(`${API}.create_conversation`)
        .set('Authorization', alice.authorization)
        .send({ title: 42 })
        .expect(422);
      expectError(wrong.body as Body, 422, 'validation_error');
      await app.http
        .post(`${API}.create_conversation`)
        .set('Authorization', alice.authorization)
        .send({ title: 'x'.repeat(501) })
        .expect(422);
      const malformed = await app.http
        .post(`${API}.create_conversation`)
        .set('Authorization', alice.authorization)
        .set('Content-Type', 'application/json')
        .send('{"title": ')
        .expect(400);
      expect((malformed.body as Body).message.success).to.equal(false);
    });
  });

  describe('list_conversations', () => {
    it("lists the current user's conversations only, newest activity first, paged", async () => {
      const carol = await addTestUser(app, 'carol');
      const ids: string[] = [];
      for (let index = 0; index < 5; index += 1) ids.push(await create(carol, `carol ${index}`));
      await create(bob, 'bob only');
      // A message makes the oldest conversation the most recently active one.
      await say(carol, ids[0]!, 'back to the first');
      const first = await get(carol, 'list_conversations', { page_size: 2 }).expect(200);
      const data = (first.body as Body).message.data;
      expect(data).to.include({ page: 1, page_size: 2, total: 5, has_more: true });
      const listed = data['conversations'] as Array<{ conversation_id: string; title: string }>;
      expect(listed.map((conversation) => conversation.conversation_id)).to.deep.equal([ids[0], ids[4]]);
      const third = await get(carol, 'list_conversations', { page: 3, page_size: 2 }).expect(200);
      const last = (third.body as Body).message.data;
      expect(last).to.include({ page: 3, total: 5, has_more: false });
      expect((last['conversations'] as unknown[]).length).to.equal(1);
      // Defaults: page 1, 20 a page, Active.
      const defaults = await get(carol, 'list_conversations').expect(200);
      expect((defaults.body as Body).message.data).to.include({ page: 1, page_size: 20, total: 5 });
      const titles = ((defaults.body as Body).message.data['conversations'] as Array<{ title: string }>).map(
        (conversation) => conversation.title,
      );
      expect(titles).to.not.include('bob only');
    });

    it('validates page, page_size (at most 100) and status', async () => {
      await get(alice, 'list_conversations', { page_size: 100 }).expect(200);
      for (const query of [
        { page_size: 101 },
        { page_size: 0 },
        { page: 0 },
        { page: 'x' },
        { status: 'Gone' },
      ]) {
        const response = await get(alice, 'list_conversations', query).expect(422);
        expectError(response.body as Body, 422, 'validation_error');
      }
    });
  });

  describe('get_conversation_history', () => {
    it('pages messages oldest first with limit and offset, and keeps tool and attachment fields', async () => {
      const id = await create(alice, 'history');
      for (let index = 1; index <= 7; index += 1) await say(alice, id, `message number ${index}`);
      const caller = { actorId: `user:${alice.name}`, correlationId: 'test' };
      const toolCalls = [{ id: 'call-1', name: 'search', arguments: { query: 'rivers' } }];
      const last = await app.runtime.conversations.append(
        alice.name,
        id,
        {
          role: 'assistant',
          content: 'looking it up',
          toolCalls,
          attachments: [{ sha256: 'ab'.repeat(32), name: 'map.png', mimeType: 'image/png', sizeBytes: 10 }],
        },
        caller,
      );
      await app.runtime.projections.waitFor(last.position);
      const defaults = await get(alice, 'get_conversation_history', { conversation_id: id }).expect(200);
      const all = (defaults.body as Body).message.data;
      expect(all).to.include({ limit: 50, offset: 0, total: 8, has_more: false });
      const messages = all['messages'] as Array<Record<string, unknown>>;
      expect(messages.map((message) => message['sequence'])).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(messages[0]).to.include({ role: 'user', content: 'message number 1' });
      expect(messages[7]).to.deep.include({
        role: 'assistant',
        tool_calls: toolCalls,
        attachments: [{ sha256: 'ab'.repeat(32), name: 'map.png', mime_type: 'image/png', size_bytes: 10 }],
      });
      const page = await get(alice, 'get_conversation_history', {
        conversation_id: id,
        limit: 3,
        offset: 2,
      }).expect(200);
      const paged = (page.body as Body).message.data;
      expect(paged).to.include({ limit: 3, offset: 2, total: 8, has_more: true });
      expect(
        (paged['messages'] as Array<{ content: string }>).map((message) => message.content),
      ).to.deep.equal(['message number 3', 'message number 4', 'message number 5']);
      const beyond = await get(alice, 'get_conversation_history', {
        conversation_id: id,
        offset: 100,
      }).expect(200);
      expect((beyond.body as Body).message.data['messages']).to.deep.equal([]);
    });

    it('pages a long conversation by key, as fast at its end as at its start', async function () {
      // A thousand appends one after another: some 15 s on a cluster's PostgreSQL.
      if (clusterMode()) this.timeout(90_000);
      const id = await create(alice, 'long');
      const caller = { actorId: `user:${alice.name}`, correlationId: 'test' };
      let position = 0;
      for (let index = 1; index <= 1_000; index += 1) {
        position = (
          await app.runtime.conversations.append(
            alice.name,
            id,
            { role: 'user', content: `line ${index}` },
            caller,
          )
        ).position;
      }
      await app.runtime.projections.waitFor(position, { timeoutMs: 20_000 });
      const page = await get(alice, 'get_conversation_history', {
        conversation_id: id,
        limit: 5,
        offset: 995,
      }).expect(200);
      expect((page.body as Body).message.data['messages'] as Array<{ sequence: number }>).to.have.length(5);
      expect(
        ((page.body as Body).message.data['messages'] as Array<{ sequence: number }>)[4]!.sequence,
      ).to.equal(1000);
    });

    it('validates conversation_id, limit (at most 500) and offset', async () => {
      await get(alice, 'get_conversation_history').expect(422);
      for (const query of [{ limit: 0 }, { limit: 501 }, { offset: -1 }]) {
        const response = await get(alice, 'get_conversation_history', {
          conversation_id: 'x',
          ...query,
        }).expect(422);
        expectError(response.body as Body, 422, 'validation_error');
      }
    });
  });

  describe('delete_conversation and restore_conversation', () => {
    it('hides a deleted conversation from the default listing and its history; restoring brings it back', async () => {
      const id = await create(alice, 'to be deleted');
      await say(alice, id, 'remember the zebra');
      const deleted = await app.http
        .delete(`${API}.delete_conversation`)
        .query({ conversation_id: id })
        .set('Authorization', alice.authorization)
        .expect(200);
      const data = (deleted.body as Body).message.data;
      expect(data).to.include({ conversation_id: id, status: 'Deleted' });
      expect(Date.parse(data['purge_at'] as string) - Date.parse(data['deleted_at'] as string)).to.equal(
        30 * 86_400_000,
      );
      const active = await get(alice, 'list_conversations', { page_size: 100 }).expect(200);
      const activeIds = (
        (active.body as Body).message.data['conversations'] as Array<{ conversation_id: string }>
      ).map((conversation) => conversation.conversation_id);
      expect(activeIds).to.not.include(id);
      const trash = await get(alice, 'list_conversations', { status: 'Deleted' }).expect(200);
      expect(
        ((trash.body as Body).message.data['conversations'] as Array<{ conversation_id: string }>).map(
          (conversation) => conversation.conversation_id,
        ),
      ).to.deep.equal([id]);
      await get(alice, 'get_conversation_history', { conversation_id: id }).expect(404);
      // Deleting again is harmless.
      await app.http
        .delete(`${API}.delete_conversation`)
        .query({ conversation_id: id })
        .set('Authorization', alice.authorization)
        .expect(200);
      const restored = await app.http
        .post(`${API}.restore_conversation`)
        .set('Authorization', alice.authorization)
        .send({ conversation_id: id })
        .expect(200);
      expect((restored.body as Body).message.data).to.include({ status: 'Active', deleted_at: null });
      const history = await get(alice, 'get_conversation_history', { conversation_id: id }).expect(200);
      expect((history.body as Body).message.data['total']).to.equal(1);
    });

    it('validates conversation_id', async () => {
      await app.http
        .delete(`${API}.delete_conversation`)
        .set('Authorization', alice.authorization)
        .expect(422);
      await app.http
        .post(`${API}.restore_conversation`)
        .set('Authorization', alice.authorization)
        .send({})
        .expect(422);
    });
  });

  describe('search_conversations', () => {
    it('finds Arabic typed without diacritics or hamza, ranked, with a snippet', async () => {
      const travelId = await create(alice, 'ملاحظات السفر');
      await say(alice, travelId, 'سنزور مَسْؤُولَ المكتبة يوم الأربعاء لمناقشة إِنشاء الفهرس الجديد');
      const other = await create(alice, 'English notes');
      await say(alice, other, 'the library catalogue needs a new index');
      // Typed without diacritics, and with the hamza left off its seat (or written on it).
      const bare = await get(alice, 'search_conversations', { query: 'مسوول' }).expect(200);
      expect(((bare.body as Body).message.data['results'] as unknown[]).length).to.equal(1);
      const plain = await get(alice, 'search_conversations', { query: 'مسؤول' }).expect(200);
      const results = (plain.body as Body).message.data['results'] as Array<Record<string, unknown>>;
      expect(results).to.have.length(1);
      expect(results[0]).to.include({
        conversation_id: travelId,
        match: 'message',
        sequence: 1,
        role: 'user',
      });
      expect(results[0]!['snippet']).to.include('مَسْؤُولَ');
      const hamza = await get(alice, 'search_conversations', { query: 'انشاء الفهرس' }).expect(200);
      expect(((hamza.body as Body).message.data['results'] as unknown[]).length).to.equal(1);
      const title = await get(alice, 'search_conversations', { query: 'السفر' }).expect(200);
      expect((title.body as Body).message.data['results']).to.deep.include.members([
        {
          conversation_id: travelId,
          title: 'ملاحظات السفر',
          match: 'title',
          message_id: null,
          sequence: 0,
          role: null,
          snippet: 'ملاحظات السفر',
          score: ((title.body as Body).message.data['results'] as Array<{ score: number }>)[0]!.score,
        },
      ]);
    });

    it("never finds another user's or a deleted conversation", async () => {
      const marker = `kumquat${Math.random().toString(36).slice(2, 8)}`;
      const mine = await create(alice, 'fruit');
      await say(alice, mine, `I like ${marker} jam`);
      const theirs = await create(bob, 'fruit');
      await say(bob, theirs, `bob also likes ${marker}`);
      const found = await get(alice, 'search_conversations', { query: marker }).expect(200);
      expect(
        ((found.body as Body).message.data['results'] as Array<{ conversation_id: string }>).map(
          (hit) => hit.conversation_id,
        ),
      ).to.deep.equal([mine]);
      await get(admin, 'search_conversations', { query: marker })
        .expect(200)
        .then((response) => expect((response.body as Body).message.data['results']).to.deep.equal([]));
      await app.http
        .delete(`${API}.delete_conversation`)
        .query({ conversation_id: mine })
        .set('Authorization', alice.authorization)
        .expect(200);
      const gone = await get(alice, 'search_conversations', { query: marker }).expect(200);
      expect((gone.body as Body).message.data['results']).to.deep.equal([]);
    });

    it('ranks and pages results, and validates its parameters', async () => {
      const id = await create(alice, 'ranking');
      await say(alice, id, 'walrus');
      await say(alice, id, 'walrus walrus walrus, a walrus story');
      await say(
        alice,
        id,
        'a long message that mentions a walrus once among many other words of no interest',
      );
      const all = await get(alice, 'search_conversations', { query: 'walrus' }).expect(200);
      const hits = (all.body as Body).message.data['results'] as Array<{ score: number; sequence: number }>;
      expect(hits).to.have.length(3);
      expect(hits.map((hit) => hit.score)).to.deep.equal(
        [...hits.map((hit) => hit.score)].sort((a, b) => b - a),
      );
      expect(hits[2]!.sequence).to.equal(3);
      const second = await get(alice, 'search_conversations', {
        query: 'walrus',
        page: 2,
        page_size: 2,
      }).expect(200);
      expect((second.body as Body).message.data['results']).to.have.length(1);
      for (const query of [{}, { query: '' }, { query: 'x'.repeat(501) }, { query: 'a', page_size: 101 }]) {
        await get(alice, 'search_conversations', query).expect(422);
      }
    });
  });

  describe('isolation', () => {
    it("answers user B, an administrator, or an unknown id as if A's conversation did not exist", async () => {
      const id = await create(alice, 'private');
      await say(alice, id, 'a private thought');
      for (const user of [bob, admin]) {
        expectError(
          (await get(user, 'get_conversation_history', { conversation_id: id }).expect(404)).body as Body,
          404,
          'conversation_not_found',
        );
        await app.http
          .delete(`${API}.delete_conversation`)
          .query({ conversation_id: id })
          .set('Authorization', user.authorization)
          .expect(404);
        await app.http
          .post(`${API}.restore_conversation`)
          .set('Authorization', user.authorization)
          .send({ conversation_id: id })
          .expect(404);
        const listed = await get(user, 'list_conversations', { page_size: 100 }).expect(200);
        expect(
          ((listed.body as Body).message.data['conversations'] as Array<{ conversation_id: string }>).map(
            (c) => c.conversation_id,
          ),
        ).to.not.include(id);
      }
      await get(alice, 'get_conversation_history', { conversation_id: 'no-such-conversation' }).expect(404);
      await app.http
        .delete(`${API}.delete_conversation`)
        .query({ conversation_id: 'no-such-conversation' })
        .set('Authorization', alice.authorization)
        .expect(404);
      // A's conversation is untouched.
      const history = await get(alice, 'get_conversation_history', { conversation_id: id }).expect(200);
      expect((history.body as Body).message.data['conversation']).to.include({ status: 'Active' });
      await expectAppendRefused(bob, id);
    });

    it('answers anonymous requests to every conversation endpoint with 401', async () => {
      const id = await create(alice, 'anonymous');
      const requests = [
        app.http.post(`${API}.create_conversation`).send({}),
        app.http.get(`${API}.list_conversations`),
        app.http.get(`${API}.get_conversation_history`).query({ conversation_id: id }),
        app.http.delete(`${API}.delete_conversation`).query({ conversation_id: id }),
        app.http.post(`${API}.restore_conversation`).send({ conversation_id: id }),
        app.http.get(`${API}.search_conversations`).query({ query: 'anonymous' }),
      ];
      for (const request of requests) {
        const response = await request.expect(401);
        expectError(response.body as Body, 401, 'authentication_required');
      }
    });
  });

  async function expectAppendRefused(user: TestUser, id: string): Promise<void> {
    const caller = { actorId: `user:${user.name}`, correlationId: 'test' };
    const error = await app.runtime.conversations
      .append(user.name, id, { role: 'user', content: 'intrusion' }, caller)
      .then(
        () => null,
        (failure: unknown) => failure,
      );
    expect(error).to.include({ code: 'conversation_not_found' });
  }
});
