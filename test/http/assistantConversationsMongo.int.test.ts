import { expect } from 'chai';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { skipInCluster } from '../support/cluster.js';
import { startMongo, type MongoHandle } from '../support/ferretDb.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const API = '/api/method/assistant.api';
type Hit = { conversation_id: string; match: string; snippet: string };

/**
 * search_conversations and history pages on the MongoDB read store (FerretDB here): the current
 * user's matches only, best first, deleted conversations left out — as on the embedded store, whose
 * search ranks a bounded set (rankNewest) this adapter ignores.
 */
describe('Assistant API conversations on the MongoDB read store', function () {
  this.timeout(60_000);
  let mongo: MongoHandle | null = null;
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  const ids: Record<string, string> = {};

  before(async function () {
    skipInCluster(
      this,
      'starts a FerretDB and a read-model database of its own; the cluster runs READ_STORE=mongodb for every suite (see assistantConversations)',
    );
    mongo = await startMongo(); // prints why when it returns null
    if (!mongo) this.skip();
    app = await startTestApp({
      env: {
        READ_STORE: 'mongodb',
        MONGODB_URL: mongo!.url,
        MONGODB_DATABASE: `conversations_${process.pid}_${Date.now()}`,
      },
    });
    alice = await addTestUser(app, 'alice');
    bob = await addTestUser(app, 'bob');
    const caller = { actorId: 'test', correlationId: 'seed' };
    for (const [key, owner, title, messages] of [
      [
        'harbour',
        'alice',
        'Harbour plans',
        ['The ferry timetable changes in May', 'Ask about the ferry fares'],
      ],
      ['budget', 'alice', 'Budget', ['The ferry budget is approved', 'Nothing else']],
      ['gone', 'alice', 'Old notes', ['A ferry story to forget']],
      ['bobs', 'bob', 'Bob’s trip', ['Bob takes the ferry on Monday', 'The ferry is late']],
    ] as const) {
      const { conversationId } = await app.runtime.conversations.create(owner, title, caller);
      ids[key] = conversationId;
      for (const content of messages) {
        await app.runtime.conversations.append(owner, conversationId, { role: 'user', content }, caller);
      }
    }
    for (let i = 0; i < 120; i += 1) {
      await app.runtime.conversations.append(
        'alice',
        ids['harbour']!,
        { role: 'assistant', content: `note ${i}` },
        caller,
      );
    }
    await app.http
      .delete(`${API}.delete_conversation`)
      .query({ conversation_id: ids['gone'] })
      .set('Authorization', alice.authorization)
      .expect(200);
  });
  after(async () => {
    await app?.stop();
    await mongo?.dispose();
  });

  const search = async (user: TestUser, query: string): Promise<Hit[]> =>
    (
      (
        await app.http
          .get(`${API}.search_conversations`)
          .query({ query })
          .set('Authorization', user.authorization)
          .expect(200)
      ).body as { message: { data: { results: Hit[] } } }
    ).message.data.results;

  it('finds the current user’s messages only, leaving out deleted conversations', async () => {
    const hits = await search(alice, 'ferry');
    expect(new Set(hits.map((hit) => hit.conversation_id))).to.deep.equal(
      new Set([ids['harbour'], ids['budget']]),
    );
    expect(hits).to.have.length(3);
    expect(hits.every((hit) => hit.snippet.toLowerCase().includes('ferry'))).to.equal(true);
    expect((await search(bob, 'ferry')).map((hit) => hit.conversation_id)).to.deep.equal([
      ids['bobs'],
      ids['bobs'],
    ]);
    expect(await search(bob, 'timetable')).to.deep.equal([]);
  });

  it('pages the history by key at any offset', async () => {
    const page = (
      (
        await app.http
          .get(`${API}.get_conversation_history`)
          .query({ conversation_id: ids['harbour'], limit: 50, offset: 100 })
          .set('Authorization', alice.authorization)
          .expect(200)
      ).body as { message: { data: { messages: Array<{ sequence: number }>; total: number } } }
    ).message.data;
    expect(page.total).to.equal(122);
    expect(page.messages.map((message) => message.sequence)).to.deep.equal(
      Array.from({ length: 22 }, (_, i) => 101 + i),
    );
  });
});
