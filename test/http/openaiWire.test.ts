import { expect } from 'chai';
import OpenAI, { AuthenticationError, BadRequestError, NotFoundError } from 'openai';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { documentSweeper, uniqueName } from '../support/cluster.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

type Completion = OpenAI.Chat.Completions.ChatCompletion & {
  citations: Array<{ index: number; doc_id: string; title: string | null }>;
  archivist: {
    conversation_id: string;
    tool_calls: Array<{ name: string; status: string }>;
    pending_actions: Array<{ action_id: string; tool_name: string; approval: string }>;
    abstained: boolean;
  };
};

/**
 * The OpenAI chat completions wire, driven by the official `openai` client: a completion is an
 * assistant turn over the knowledge base, streamed or not, with citations as numbered references
 * and a structured field; a high-risk call only ever becomes a pending action.
 */
describe('OpenAI-compatible wire (/v1) with the official openai client', function () {
  this.timeout(60_000);
  let app: TestApp;
  let alice: TestUser;
  let client: OpenAI;
  let baseURL: string;
  const stored = documentSweeper();
  const title = uniqueName('Riverbend Gauge Manual');
  let docId: string;

  before(async () => {
    app = await startTestApp();
    alice = await addTestUser(app, 'alice');
    const text = `# ${title}\n\nThe Riverbend gauge is read at seven each morning by the duty warden, who writes the level in the blue ledger.\n`;
    const uploaded = await app.http
      .post('/api/v1/upload')
      .attach('file', Buffer.from(text), `${title}.md`)
      .expect(200);
    docId = stored.keep(uploaded.body as { doc_id: string }).doc_id;
    baseURL = `${(await app.server()).url}/v1`;
    const key = alice.authorization.replace(/^token /, '');
    client = new OpenAI({ baseURL, apiKey: key, maxRetries: 0 });
  });
  after(async () => {
    await stored.sweep((id) => app.http.delete(`/api/v1/documents/${id}`).expect(200));
    await app.stop();
  });

  it('lists the assistant as its model', async () => {
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).to.deep.equal(['archivist']);
    expect((await client.models.retrieve('archivist')).id).to.equal('archivist');
  });

  it('answers a question from the knowledge base with numbered citations, in the content and as a field', async () => {
    const completion = (await client.chat.completions.create({
      model: 'archivist',
      messages: [{ role: 'user', content: `When is the gauge in the ${title} read?` }],
    })) as Completion;
    const content = completion.choices[0]!.message.content ?? '';
    expect(completion.object).to.equal('chat.completion');
    expect(completion.choices[0]!.finish_reason).to.equal('stop');
    expect(content).to.match(/seven/i);
    const cited = completion.citations.find((citation) => citation.doc_id === docId);
    expect(cited, 'the uploaded document is cited').to.not.equal(undefined);
    expect(content).to.include(`[${cited!.index}] ${title}`);
    // The knowledge tool ran server-side; the client was given no call to run.
    expect(completion.archivist.tool_calls.map((call) => call.name)).to.include('query_knowledge');
    expect(completion.choices[0]!.message.tool_calls).to.equal(undefined);
    expect(completion.usage!.total_tokens).to.be.greaterThan(0);
    // The turn is a conversation of the caller's, readable through the Assistant API.
    const history = await app.http
      .get('/api/method/assistant.api.get_conversation_history')
      .query({ conversation_id: completion.archivist.conversation_id })
      .set('Authorization', alice.authorization)
      .expect(200);
    expect(JSON.stringify(history.body)).to.include('When is the gauge');
  });

  it('streams the same answer as chunks, ending with citations and [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: 'archivist',
      stream: true,
      messages: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: `Who reads the gauge in the ${title}?` },
      ],
    });
    let content = '';
    type Last = OpenAI.Chat.Completions.ChatCompletionChunk & { citations?: Completion['citations'] };
    let last: Last | null = null;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      content += chunk.choices[0]?.delta.content ?? '';
      last = chunk as Last;
    }
    expect(chunks).to.be.greaterThan(2);
    expect(content).to.match(/warden/i);
    expect(last!.choices[0]!.finish_reason).to.equal('stop');
    expect(last!.citations!.map((citation) => citation.doc_id)).to.include(docId);
  });

  it('turns a deletion into a pending action named in the answer, and deletes nothing', async () => {
    const completion = (await client.chat.completions.create({
      model: 'archivist',
      messages: [{ role: 'user', content: `Delete the document about ${title}` }],
    })) as Completion;
    const [pending] = completion.archivist.pending_actions;
    expect(pending).to.include({ tool_name: 'delete_document', approval: 'self' });
    expect(completion.choices[0]!.message.content).to.include(pending!.action_id);
    await app.http.get(`/api/v1/documents/${docId}`).expect(200);
    const listed = await app.http
      .get('/api/method/assistant.api.list_pending_actions')
      .set('Authorization', alice.authorization)
      .expect(200);
    expect(JSON.stringify(listed.body)).to.include(pending!.action_id);
    await app.http
      .post('/api/method/assistant.api.reject_action')
      .set('Authorization', alice.authorization)
      .send({ action_id: pending!.action_id })
      .expect(200);
  });

  it('continues a conversation it was given, adding only the new message', async () => {
    const first = (await client.chat.completions.create({
      model: 'archivist',
      messages: [{ role: 'user', content: `What is written in the blue ledger of the ${title}?` }],
    })) as Completion;
    const conversationId = first.archivist.conversation_id;
    // Archivist's own field, beside OpenAI's: the client passes unknown fields through.
    const request = {
      model: 'archivist',
      messages: [{ role: 'user' as const, content: 'hello' }],
      conversation_id: conversationId,
    };
    const second = (await client.chat.completions.create(request)) as Completion;
    expect(second.archivist.conversation_id).to.equal(conversationId);
  });

  it('stores the transcript it was sent as the conversation the turn reads', async () => {
    const completion = (await client.chat.completions.create({
      model: 'archivist',
      messages: [
        { role: 'user', content: 'My name is Ilse and I keep the weir.' },
        { role: 'assistant', content: 'Noted, Ilse.' },
        { role: 'user', content: 'hello' },
      ],
    })) as Completion;
    const history = await app.http
      .get('/api/method/assistant.api.get_conversation_history')
      .query({ conversation_id: completion.archivist.conversation_id })
      .set('Authorization', alice.authorization)
      .expect(200);
    const messages = (
      history.body as { message: { data: { messages: Array<{ role: string; content: string }> } } }
    ).message.data.messages;
    expect(messages.slice(0, 3).map((each) => [each.role, each.content])).to.deep.equal([
      ['user', 'My name is Ilse and I keep the weir.'],
      ['assistant', 'Noted, Ilse.'],
      ['user', 'hello'],
    ]);
  });

  it('answers errors in OpenAI\u2019s shape, which the client raises as its own errors', async () => {
    const wrongKey = new OpenAI({ baseURL, apiKey: 'nokey:nosecret', maxRetries: 0 });
    const unauthorized = await wrongKey.models.list().catch((error: unknown) => error);
    expect(unauthorized).to.be.instanceOf(AuthenticationError);
    expect((unauthorized as AuthenticationError).status).to.equal(401);

    const unknownModel = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(unknownModel).to.be.instanceOf(NotFoundError);
    expect((unknownModel as NotFoundError).code).to.equal('model_not_found');

    const noMessages = await client.chat.completions
      .create({ model: 'archivist', messages: [] })
      .catch((error: unknown) => error);
    expect(noMessages).to.be.instanceOf(BadRequestError);
    expect((noMessages as BadRequestError).error).to.include({ type: 'invalid_request_error' });

    const assistantLast = await client.chat.completions
      .create({ model: 'archivist', messages: [{ role: 'assistant', content: 'I said so' }] })
      .catch((error: unknown) => error);
    expect(assistantLast).to.be.instanceOf(BadRequestError);
    expect((assistantLast as BadRequestError).param).to.equal('messages.0');
  });
});
