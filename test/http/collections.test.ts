import { expect } from 'chai';
import { collectionAggregate } from '../../src/commands/aggregates.js';
import { createCommandService } from '../../src/commands/commandService.js';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { documentSweeper, uniqueName } from '../support/cluster.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const API = '/api/method/assistant.api';
const SERVICE_KEY = 'collections-service-key';

/**
 * Collections and access control, end to end: a private collection granted to one user. Its
 * document's marker (in its text, its title and its file name) reaches another user by no route of
 * either API, while its grantee, an administrator and a service key find it.
 */
describe('private collections', function () {
  this.timeout(120_000);
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  const stored = documentSweeper();
  const marker = `zqsecret${Math.random().toString(36).slice(2, 10)}`;
  const titleMarker = `zqtitle${Math.random().toString(36).slice(2, 10)}`;
  const nameMarker = `zqname${Math.random().toString(36).slice(2, 10)}`;
  const collection = uniqueName('secret');
  let docId: string;
  let taskId: string;

  before(async () => {
    app = await startTestApp({ env: { API_KEYS: SERVICE_KEY } });
    alice = await addTestUser(app, 'alice');
    bob = await addTestUser(app, 'bob');
    carol = await addTestUser(app, 'carol', { admin: true });
    dave = await addTestUser(app, 'dave');
    const collections = createCommandService(collectionAggregate, {
      eventStore: app.runtime.eventStore,
      clock: () => new Date(),
    });
    const granted = await collections.execute(
      'GrantCollectionAccess',
      { collection, user: alice.name, level: 'write' },
      { actorId: 'test', correlationId: 'grant' },
    );
    const readOnly = await collections.execute(
      'GrantCollectionAccess',
      { collection, user: dave.name, level: 'read' },
      { actorId: 'test', correlationId: 'grant-read' },
    );
    const position = Math.max(granted.position, readOnly.position);
    expect(await app.runtime.projections.waitFor(position, { timeoutMs: 30_000 })).to.equal(true);

    const text = `# ${titleMarker} field notes\n\nThe survey of ${marker} along the northern river bank found erosion.\n`;
    const uploaded = await app.http
      .post('/api/v1/upload')
      .set('Authorization', alice.authorization)
      .field('collection', collection)
      .attach('file', Buffer.from(text), `${nameMarker}.md`)
      .expect(200);
    expect(uploaded.body).to.include({ success: true });
    docId = stored.keep(uploaded.body as { doc_id: string }).doc_id;
    const tasks = await app.http.get('/api/v1/tasks').set('Authorization', alice.authorization).expect(200);
    taskId = (tasks.body.tasks as Array<{ task_id: string }>)[0]!.task_id;
  });
  after(async () => {
    await stored.sweep((id) =>
      app.http.delete(`/api/v1/documents/${id}`).set('X-API-Key', SERVICE_KEY).expect(200),
    );
    await app.stop();
  });

  const as = (user: TestUser) => ({
    get: (path: string) => app.http.get(path).set('Authorization', user.authorization),
    post: (path: string, body: object) =>
      app.http.post(path).set('Authorization', user.authorization).send(body),
    delete: (path: string) => app.http.delete(path).set('Authorization', user.authorization),
  });
  /** Whether any of the markers is in a response. */
  const leaks = (body: unknown): boolean => {
    const text = JSON.stringify(body);
    return [marker, titleMarker, nameMarker].some((each) => text.includes(each));
  };
  const tool = (user: TestUser, name: string, params: object) =>
    as(user).post(`${API}.execute_tool`, { tool_name: name, params }).expect(200);

  it('shows the private document to no other user through the Retrieval API', async () => {
    const reads = [
      await as(bob).post('/api/v1/search', { query: marker }).expect(200),
      await as(bob).post('/api/v1/search', { query: marker, filters: { collection } }).expect(200),
      await as(bob)
        .post('/api/v1/query', { question: 'What did the survey along the northern river bank find?' })
        .expect(200),
      await as(bob).get('/api/v1/documents').expect(200),
      await as(bob).get('/api/v1/documents/sources').expect(200),
      await as(bob).get('/api/v1/documents/stats').expect(200),
      await as(bob).get('/api/v1/tasks').expect(200),
    ];
    for (const [index, read] of reads.entries())
      expect(leaks(read.body), `read ${index} ${JSON.stringify(read.body).slice(0, 500)}`).to.equal(false);
    expect((await as(bob).get(`/api/v1/documents/${docId}`).expect(404)).body.error).to.not.equal(undefined);
    await as(bob).get(`/api/v1/tasks/${taskId}`).expect(404);
    await as(bob).get(`/api/v1/tasks/${taskId}/events`).expect(404);
    const deleted = await as(bob).delete(`/api/v1/documents/${docId}`).expect(200);
    expect(deleted.body).to.include({ status: 'not_found' });
    const events = await as(bob).get('/api/v1/events?from=0').expect(403);
    expect(leaks(events.body)).to.equal(false);
  });

  it('shows it to no other user through the assistant’s tools and chat', async () => {
    const reads = [
      await tool(bob, 'search_knowledge', { query: marker }),
      await tool(bob, 'query_knowledge', {
        question: 'What did the survey along the northern river bank find?',
      }),
      await tool(bob, 'search_knowledge', { query: 'survey northern river bank erosion' }),
      await tool(bob, 'list_documents', {}),
      await tool(bob, 'get_document', { doc_id: docId }),
      await tool(bob, 'knowledge_stats', {}),
      await tool(bob, 'list_tasks', {}),
      await as(bob)
        .post(`${API}.chat_with_tools`, {
          user_message: 'What did the survey along the northern river bank find?',
        })
        .expect(200),
    ];
    for (const read of reads)
      expect(leaks(read.body), JSON.stringify(read.body).slice(0, 200)).to.equal(false);
  });

  it('refuses a deletion by a read-only grantee outright: no pending action is recorded', async () => {
    const seen = await as(dave).get(`/api/v1/documents/${docId}`).expect(200);
    expect(seen.body.metadata).to.include({ collection });
    const refused = await as(dave)
      .post(`${API}.execute_tool`, { tool_name: 'delete_document', params: { doc_id: docId } })
      .expect(403);
    expect(refused.body.message.error).to.include({ type: 'collection_forbidden', status_code: 403 });
    const pending = await as(dave).get(`${API}.list_pending_actions`).expect(200);
    expect(JSON.stringify(pending.body)).to.not.include(docId);
    const direct = await as(dave).delete(`/api/v1/documents/${docId}`).expect(403);
    expect(direct.body).to.include({ error: 'collection_forbidden' });
    // Another user, who cannot see it, learns only that there is no such document.
    const hidden = await as(bob)
      .post(`${API}.execute_tool`, { tool_name: 'delete_document', params: { doc_id: docId } })
      .expect(404);
    expect(leaks(hidden.body)).to.equal(false);
  });

  it('refuses another user’s upload into the collection, and finds no duplicate of it elsewhere', async () => {
    const refused = await app.http
      .post('/api/v1/upload')
      .set('Authorization', bob.authorization)
      .field('collection', collection)
      .attach('file', Buffer.from('# Notes\n\nSomething else entirely.\n'), 'notes.md')
      .expect(403);
    expect(refused.body).to.include({ error: 'collection_forbidden', status_code: 403 });
    // The same file in the open collection is a document of its own, not a duplicate of the private one.
    const text = `# ${titleMarker} field notes\n\nThe survey of ${marker} along the northern river bank found erosion.\n`;
    const copy = await app.http
      .post('/api/v1/upload')
      .set('Authorization', bob.authorization)
      .attach('file', Buffer.from(text), 'copy.md')
      .expect(200);
    stored.keep(copy.body as { doc_id: string });
    expect(copy.body).to.include({ success: true, is_duplicate: false, existing_doc_id: null });
    await app.http
      .delete(`/api/v1/documents/${copy.body.doc_id as string}`)
      .set('X-API-Key', SERVICE_KEY)
      .expect(200);
  });

  it('shows it to its grantee, to an administrator and to a service key', async () => {
    for (const reader of [alice, carol]) {
      const found = await as(reader).post('/api/v1/search', { query: marker }).expect(200);
      expect((found.body.results as Array<{ doc_id: string }>).map((hit) => hit.doc_id)).to.include(docId);
      const doc = await as(reader).get(`/api/v1/documents/${docId}`).expect(200);
      expect(doc.body.metadata).to.include({ collection });
    }
    const service = await app.http
      .post('/api/v1/search')
      .set('X-API-Key', SERVICE_KEY)
      .send({ query: marker })
      .expect(200);
    expect((service.body.results as Array<{ doc_id: string }>).map((hit) => hit.doc_id)).to.include(docId);
  });
});
