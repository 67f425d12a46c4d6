import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { resetAssistantSettings } from '../support/assistantSettings.js';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import {
  API,
  dataOf,
  messageOf,
  type EnvelopeBody as Body,
  type ToolCall,
} from '../support/assistantEnvelope.js';
import { clusterMode, documentSweeper } from '../support/cluster.js';
import { openSse, type SseEvent } from '../support/sseClient.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { uploadTextFixtures } from '../support/uploadTextFixtures.js';

/** Reads events until `done` or `error` (inclusive). */
async function untilEnd(stream: { next(): Promise<SseEvent> }): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for (;;) {
    const event = await stream.next();
    events.push(event);
    if (event.event === 'done' || event.event === 'error') return events;
  }
}

const contentOf = (events: readonly SseEvent[]): string =>
  events
    .filter((event) => event.event === 'content')
    .map((event) => String(event.data['content']))
    .join('');

describe('Assistant API chat in local mode (real stores, tools run by workers)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  const stored = documentSweeper();

  const start = () => startTestApp({ env: { DATA_DIR: dataDir, EVENT_STORE: 'file' } });
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'archivist-chat-'));
    app = await start();
    await resetAssistantSettings(app.runtime);
    alice = await addTestUser(app, 'alice');
    bob = await addTestUser(app, 'bob');
    stored.keep(await uploadTextFixtures(app, 'readme.md', 'guide.rst'));
  });
  after(async () => {
    await stored.sweep((docId) => app.http.delete(`/api/v1/documents/${docId}`).expect(200));
    await app.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const chat = (user: TestUser | null, body: object) => {
    const request = app.http.post(`${API}.chat_with_tools`);
    return (user ? request.set('Authorization', user.authorization) : request).send(body);
  };
  const history = (user: TestUser, conversationId: string) =>
    app.http
      .get(`${API}.get_conversation_history`)
      .query({ conversation_id: conversationId })
      .set('Authorization', user.authorization);
  async function streamUrl(query: Record<string, string>): Promise<string> {
    const { url } = await app.server();
    return `${url}${API}.stream_ai_response?${new URLSearchParams(query).toString()}`;
  }

  describe('chat_with_tools', () => {
    it('answers a question from the knowledge base through a recorded tool call, with citations', async () => {
      const response = await chat(alice, { user_message: 'How do I install the Riverwatch toolkit?' }).expect(
        200,
      );
      const data = dataOf(response);
      expect(data['mode']).to.equal('local');
      const calls = data['tool_calls'] as ToolCall[];
      expect(calls).to.have.length(1);
      expect(calls[0]).to.deep.include({
        name: 'query_knowledge',
        arguments: { question: 'How do I install the Riverwatch toolkit?' },
        status: 'executed',
      });
      expect(String(data['response']))
        .to.match(/pip install/i)
        .and.to.match(/\[1\]/);
      const citations = data['citations'] as Array<{ doc_id: string; title: string }>;
      expect(citations.length).to.be.greaterThan(0);
      expect(citations.map((citation) => citation.title)).to.include('Riverwatch Toolkit');
      const cited = citations.find((citation) => citation.title === 'Riverwatch Toolkit') as unknown as {
        chunk_id: string;
        section_path: string[];
        page_start: number;
        excerpt: { text: string; start: number; end: number };
      };
      expect(cited.chunk_id).to.be.a('string');
      expect(cited.page_start).to.equal(1);
      expect(cited.excerpt.text).to.match(/install/i);
      const tokens = messageOf(response).tokens_used;
      expect(tokens.input).to.be.greaterThan(0);
      expect(tokens.output).to.be.greaterThan(0);
      expect(tokens.total).to.equal(tokens.input + tokens.output);
      expect(data['abstained']).to.equal(false);
      const unanswered = await chat(alice, {
        user_message: 'Which chess opening did Kasparov prefer in 1985?',
      }).expect(200);
      expect(dataOf(unanswered)).to.include({
        response: 'I could not find this in the documents.',
        abstained: true,
      });

      const stored = await history(alice, String(data['conversation_id'])).expect(200);
      const messages = dataOf(stored)['messages'] as Array<Record<string, unknown>>;
      expect(messages.map((message) => message['role'])).to.deep.equal([
        'user',
        'assistant',
        'tool',
        'assistant',
      ]);
      expect(messages[3]!['message_id']).to.equal(data['message_id']);
      expect(messages[3]!['content']).to.equal(data['response']);
    });

    it('counts the tokens of an answer the local rules composed without a model (never zero when it said something)', async () => {
      const response = await chat(alice, { user_message: 'How many documents are there?' }).expect(200);
      const data = dataOf(response);
      expect((data['tool_calls'] as ToolCall[]).map((call) => call.name)).to.deep.equal(['knowledge_stats']);
      expect(String(data['response'])).to.not.equal('');
      const tokens = messageOf(response).tokens_used;
      expect(tokens.input).to.be.greaterThan(0);
      expect(tokens.output).to.be.greaterThan(0);
      expect(tokens.total).to.equal(tokens.input + tokens.output);
    });

    it('answers a greeting directly, without a tool, saying what it can do', async () => {
      const response = await chat(alice, { user_message: 'hello, who are you?' }).expect(200);
      const data = dataOf(response);
      expect(data['tool_calls']).to.deep.equal([]);
      expect(String(data['response'])).to.match(/^Hello! I am the assistant of this knowledge base\. I can /);
      expect(String(data['response'])).to.include('answer questions from the knowledge base');
      expect(messageOf(response).tokens_used.total).to.be.greaterThan(0);
    });

    it('finds the document a deletion names and proposes deleting it as a pending action; nothing is deleted', async () => {
      const response = await chat(alice, {
        user_message: 'Delete the document about Riverwatch Toolkit',
      }).expect(200);
      const data = dataOf(response);
      const calls = data['tool_calls'] as ToolCall[];
      expect(calls.map((call) => [call.name, call.status])).to.deep.equal([
        ['search_knowledge', 'executed'],
        ['delete_document', 'pending_confirmation'],
      ]);
      const docId = (calls[1]!.arguments as { doc_id: string }).doc_id;
      const document = await app.http.get(`/api/v1/documents/${docId}`).expect(200);
      expect(document.body.metadata.title).to.equal('Riverwatch Toolkit');
      const pending = await app.http
        .get(`${API}.list_pending_actions`)
        .set('Authorization', alice.authorization)
        .expect(200);
      const action = (dataOf(pending)['actions'] as Array<Record<string, unknown>>).find(
        (item) => (item['params'] as { doc_id?: string }).doc_id === docId,
      );
      expect(action).to.include({ tool_name: 'delete_document', status: 'pending' });
      expect(String(data['response'])).to.include(`action ${String(action!['action_id'])}`);
      await app.http
        .post(`${API}.reject_action`)
        .set('Authorization', alice.authorization)
        .send({ action_id: action!['action_id'], reason: 'test' })
        .expect(200);
      await app.http.get(`/api/v1/documents/${docId}`).expect(200);
    });

    it('continues a given conversation, and titles a new one from the message', async () => {
      // The fixtures, or in a cluster every suite's documents.
      const total = clusterMode()
        ? ((await app.http.get('/api/v1/documents').expect(200)).body.total as number)
        : 2;
      const first = dataOf(await chat(alice, { user_message: 'show me the documents' }).expect(200));
      expect((first['tool_calls'] as ToolCall[])[0]!.name).to.equal('list_documents');
      expect(String(first['response'])).to.include('Riverwatch Toolkit').and.to.include(`${total} documents`);
      const conversationId = String(first['conversation_id']);
      const second = dataOf(
        await chat(alice, {
          user_message: 'What does the field guide measure?',
          conversation_id: conversationId,
        }).expect(200),
      );
      expect(second['conversation_id']).to.equal(conversationId);
      const listed = await app.http
        .get(`${API}.list_conversations`)
        .set('Authorization', alice.authorization)
        .expect(200);
      const conversations = dataOf(listed)['conversations'] as Array<Record<string, unknown>>;
      const found = conversations.find((conversation) => conversation['conversation_id'] === conversationId);
      expect(found?.['title']).to.equal('show me the documents');
      const stored = dataOf(await history(alice, conversationId).expect(200))['messages'] as unknown[];
      expect(stored).to.have.length(8);
    });

    it('proposes the call without running it when auto_execute_tools is false', async () => {
      const before = await app.runtime.readModels.count('tasks', {});
      const response = await chat(alice, { user_message: 'list my tasks', auto_execute_tools: false }).expect(
        200,
      );
      const data = dataOf(response);
      expect(data['tool_calls']).to.deep.equal([
        {
          id: (data['tool_calls'] as ToolCall[])[0]!.id,
          name: 'list_tasks',
          arguments: {},
          status: 'proposed',
        },
      ]);
      expect(data['response']).to.equal('');
      expect(data['finish_reason']).to.equal('tool_calls');
      expect(await app.runtime.readModels.count('tasks', {})).to.equal(before);
    });

    it("answers another user's or an unknown conversation 404, and a deleted one 409", async () => {
      const mine = dataOf(await chat(alice, { user_message: 'first question' }).expect(200));
      const conversationId = String(mine['conversation_id']);
      const theirs = await chat(bob, { user_message: 'hello', conversation_id: conversationId }).expect(404);
      expect(messageOf(theirs).error).to.include({ type: 'conversation_not_found' });
      await chat(alice, { user_message: 'hello', conversation_id: 'no-such-conversation' }).expect(404);
      await app.http
        .delete(`${API}.delete_conversation`)
        .query({ conversation_id: conversationId })
        .set('Authorization', alice.authorization)
        .expect(200);
      const gone = await chat(alice, { user_message: 'again', conversation_id: conversationId }).expect(409);
      expect(messageOf(gone).error).to.include({ type: 'conversation_deleted' });
    });

    it('keeps concurrent turns of one conversation whole: every message stored once, each turn told apart', async () => {
      const first = dataOf(await chat(alice, { user_message: 'stats please' }).expect(200));
      const conversationId = String(first['conversation_id']);
      const answers = await Promise.all(
        ['install', 'erosion', 'turbidity', 'requirements', 'kits'].map((topic) =>
          chat(alice, {
            user_message: `What is said about ${topic}?`,
            conversation_id: conversationId,
          }).expect(200),
        ),
      );
      const page = await app.http
        .get(`${API}.get_conversation_history`)
        .query({ conversation_id: conversationId, limit: 100 })
        .set('Authorization', alice.authorization)
        .expect(200);
      const messages = dataOf(page)['messages'] as Array<{
        sequence: number;
        role: string;
        turn_id: string;
        message_id: string;
      }>;
      expect(messages.map((message) => message.sequence)).to.deep.equal(
        Array.from({ length: 24 }, (_, at) => at + 1),
      );
      const turns = new Map<string, string[]>();
      for (const message of messages)
        turns.set(message.turn_id, [...(turns.get(message.turn_id) ?? []), message.role]);
      expect([...turns.values()]).to.have.length(6);
      for (const roles of turns.values())
        expect(roles).to.deep.equal(['user', 'assistant', 'tool', 'assistant']);
      const finals = new Set(answers.map((answer) => String(dataOf(answer)['message_id'])));
      expect(messages.filter((message) => finals.has(message.message_id))).to.have.length(5);
    });

    it('refuses bad requests with 4xx in the envelope, and anonymous callers with 401', async () => {
      for (const body of [
        {},
        { user_message: '' },
        { user_message: '   ' },
        { user_message: 42 },
        { user_message: 'x'.repeat(32_001) },
        { user_message: 'hi', max_tokens: 0 },
        { user_message: 'hi', auto_execute_tools: 'yes' },
        { user_message: 'hi', system_prompt: 'x'.repeat(8_001) },
      ]) {
        const response = await chat(alice, body);
        expect(response.status, JSON.stringify(body).slice(0, 80)).to.equal(422);
        expect(messageOf(response)).to.include({ success: false, data: null });
      }
      await chat(null, { user_message: 'hi' }).expect(401);
    });

    it('sends rate-limit headers with the answer', async () => {
      const response = await chat(alice, { user_message: 'stats please' }).expect(200);
      expect(response.headers['x-ratelimit-limit']).to.equal('100');
      expect(Number(response.headers['x-ratelimit-remaining'])).to.be.below(100);
    });
  });

  describe('chat_with_tools_multimodal', () => {
    const image = () =>
      readFile(join(import.meta.dirname, '..', 'fixtures', 'documents', 'image', 'english.png'));
    const multimodal = (user: TestUser) =>
      app.http.post(`${API}.chat_with_tools_multimodal`).set('Authorization', user.authorization);

    it('reads an image (OCR) and a document, answers from them, and records each file by hash and name', async () => {
      const png = await image();
      const notes = Buffer.from('# Field notes\n\nThe sensor batteries last nine days in winter.\n');
      const response = await multimodal(alice)
        .field('user_message', 'How long do the sensor batteries last?')
        .attach('files[]', png, 'scan.png')
        .attach('files[]', notes, 'notes.md')
        .expect(200);
      const data = dataOf(response);
      expect(String(data['response'])).to.include('nine days');
      expect(data['tool_calls']).to.deep.equal([]);
      const messages = dataOf(await history(alice, String(data['conversation_id'])).expect(200))[
        'messages'
      ] as Array<Record<string, unknown>>;
      const user = messages[0]!;
      expect(user['attachments']).to.deep.equal([
        {
          sha256: createHash('sha256').update(png).digest('hex'),
          name: 'scan.png',
          mime_type: 'image/png',
          size_bytes: png.length,
        },
        {
          sha256: createHash('sha256').update(notes).digest('hex'),
          name: 'notes.md',
          mime_type: 'text/markdown',
          size_bytes: notes.length,
        },
      ]);
      // The OCR text of the image is the model's context, kept with the message.
      expect(String(user['content']).toLowerCase()).to.include('newspapers');
    });

    it('falls back to the knowledge base when the files do not answer, and takes a message without files', async () => {
      const response = await multimodal(alice)
        .field('user_message', 'How do I install the Riverwatch toolkit?')
        .attach('files[]', Buffer.from('Unrelated shopping list: apples, pears.'), 'list.txt')
        .expect(200);
      expect((dataOf(response)['tool_calls'] as ToolCall[])[0]!.name).to.equal('query_knowledge');
      expect(String(dataOf(response)['response'])).to.match(/pip install/i);
      await multimodal(alice).field('user_message', 'show me the documents').expect(200);
    });

    it('refuses unreadable or too many files before storing anything, and a missing message', async () => {
      const before = await app.runtime.readModels.count('conversations', {});
      const broken = await multimodal(alice)
        .field('user_message', 'What is this?')
        .attach('files[]', Buffer.from('not a zip at all'), 'report.docx');
      expect(broken.status).to.be.oneOf([415, 422]);
      expect(messageOf(broken)).to.include({ success: false, data: null });
      const many = multimodal(alice).field('user_message', 'Eleven files');
      for (let index = 0; index < 11; index += 1)
        many.attach('files[]', Buffer.from(`file ${index}`), `f${index}.txt`);
      expect((await many).status).to.equal(422);
      await multimodal(alice).attach('files[]', Buffer.from('x'), 'x.txt').expect(422);
      expect(await app.runtime.readModels.count('conversations', {})).to.equal(before);
    });
  });

  describe('stream_ai_response', () => {
    it('streams tool_start, tool_result, content and done, and stores the same answer', async () => {
      const stream = await openSse(await streamUrl({ prompt: 'How do I install the Riverwatch toolkit?' }), {
        Authorization: alice.authorization,
      });
      expect(stream.status).to.equal(200);
      const events = await untilEnd(stream);
      stream.close();
      expect(events.map((event) => event.event).slice(0, 2)).to.deep.equal(['tool_start', 'tool_result']);
      expect(events.at(-1)!.event).to.equal('done');
      expect(events.filter((event) => event.event === 'content').length).to.be.greaterThan(1);
      const done = events.at(-1)!.data;
      expect((done['tokens_used'] as { total: number }).total).to.be.greaterThan(0);
      const stored = dataOf(await history(alice, String(done['conversation_id'])).expect(200))[
        'messages'
      ] as Array<Record<string, unknown>>;
      expect(stored.at(-1)!['content']).to.equal(contentOf(events));
      expect(stored.at(-1)!['message_id']).to.equal(done['message_id']);
      // Ids grow with what was read: conversation, turn, then a position.
      const positions = events.map((event) => Number(event.id!.split(':')[2]));
      expect(positions).to.deep.equal([...positions].sort((a, b) => a - b));
    });

    for (const where of ['from memory', 'from the stored conversation after a restart'] as const) {
      it(`resumes after Last-Event-ID without gaps or repeats, ${where}`, async () => {
        const prompt = 'What does the field guide say about measuring bank erosion?';
        const first = await openSse(await streamUrl({ prompt }), { Authorization: alice.authorization });
        const all = await untilEnd(first);
        first.close();
        if (where !== 'from memory') {
          await app.stop();
          app = await start();
        }
        // Cut inside the content: after the tool events and the first content delta.
        const cut = all.findIndex((event) => event.event === 'content');
        const resumed = await openSse(await streamUrl({ prompt: 'ignored when resuming' }), {
          Authorization: alice.authorization,
          'Last-Event-ID': all[cut]!.id!,
        });
        expect(resumed.status).to.equal(200);
        const rest = await untilEnd(resumed);
        resumed.close();
        expect(contentOf(all.slice(0, cut + 1)) + contentOf(rest)).to.equal(contentOf(all));
        expect(rest.at(-1)!.data).to.deep.equal(all.at(-1)!.data);
        expect(rest.at(-1)!.id).to.equal(all.at(-1)!.id);
        expect(rest.some((event) => event.event === 'tool_start')).to.equal(false);

        const fromStart = `${all[0]!.id!.split(':').slice(0, 2).join(':')}:0`;
        const again = await openSse(await streamUrl({}), {
          Authorization: alice.authorization,
          'Last-Event-ID': fromStart,
        });
        const replay = await untilEnd(again);
        again.close();
        const notContent = (events: SseEvent[]) =>
          events
            .filter((event) => event.event !== 'content')
            .map((event) => [event.event, event.data, event.id]);
        expect(notContent(replay)).to.deep.equal(notContent(all));
        expect(contentOf(replay)).to.equal(contentOf(all));

        const { url } = await app.server();
        const ended = await fetch(`${url}${API}.stream_ai_response`, {
          headers: { Authorization: alice.authorization, 'Last-Event-ID': all.at(-1)!.id! },
        });
        expect(ended.status).to.equal(204);
      });
    }

    it("refuses a malformed Last-Event-ID (400), another user's turn (404), and a missing prompt (422)", async () => {
      const { url } = await app.server();
      const get = (headers: Record<string, string>, query = '') =>
        fetch(`${url}${API}.stream_ai_response${query}`, {
          headers: { Authorization: alice.authorization, ...headers },
        });
      expect((await get({ 'Last-Event-ID': 'garbage' })).status).to.equal(400);
      expect((await get({})).status).to.equal(422);
      // Too long for the query, even percent-encoded Arabic (~110 KB of URL): the API's 422, not a bare 431.
      const long = await get({}, `?prompt=${encodeURIComponent('سؤال'.repeat(2_001))}`);
      expect(long.status).to.equal(422);
      expect(((await long.json()) as Body).message.error).to.include({ type: 'validation_error' });
      const mine = dataOf(await chat(alice, { user_message: 'stats please' }).expect(200));
      const response = await fetch(`${url}${API}.stream_ai_response`, {
        headers: {
          Authorization: bob.authorization,
          'Last-Event-ID': `${String(mine['conversation_id'])}:1:0`,
        },
      });
      expect(response.status).to.equal(404);
      const body = (await response.json()) as Body;
      expect(body.message.success).to.equal(false);
    });
  });
});
