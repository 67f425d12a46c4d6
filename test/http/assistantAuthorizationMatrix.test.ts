import { expect } from 'chai';
import type supertest from 'supertest';
import { assistantApiRoutes } from '../../src/http/assistant/routes.js';
import { resetAssistantSettings } from '../support/assistantSettings.js';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const BASE = '/api/method';
type Actor = 'anonymous' | 'alice' | 'bob' | 'admin';
/** Alice's resources, made afresh for each endpoint's row so a destructive call harms no other row. */
type Fixture = { owner: string; conversationId: string; actionId: string; sessionId: string; marker: string };
type Body = { message: { success: boolean; data: Record<string, unknown> | null; error?: { type: string } } };

interface Row {
  request(http: TestApp['http'], fixture: Fixture): supertest.Test;
  /** Expected status per actor; alice owns the fixture, bob and the administrator do not. */
  expect: Record<Actor, number | readonly number[]>;
  /** For actors who may call it but own nothing of it: the answer must not show alice's resource. */
  hides?: (data: Record<string, unknown>, fixture: Fixture) => void;
}

const api = (name: string): string => `${BASE}/assistant.api.${name}`;
const everyone = (status: number): Row['expect'] => ({
  anonymous: 401,
  alice: status,
  bob: status,
  admin: status,
});
/** Alice's resource: others are answered as if it did not exist, administrators included. */
const alicesOnly = (status: number | readonly number[]): Row['expect'] => ({
  anonymous: 401,
  alice: status,
  bob: 404,
  admin: 404,
});
const mentions = (data: unknown, id: string): boolean => JSON.stringify(data).includes(id);

/**
 * Every Assistant API endpoint, by `METHOD path` as src/http/assistant/routes.ts declares it. An
 * endpoint added there and missing here fails the first test.
 */
const MATRIX: Record<string, Row> = {
  'POST /login': {
    // Public: anyone may try; a wrong password is 401 whoever asks.
    request: (http, f) => http.post(`${BASE}/login`).send({ usr: f.owner, pwd: 'not-the-password' }),
    expect: { anonymous: 401, alice: 401, bob: 401, admin: 401 },
  },
  'POST /logout': {
    request: (http) => http.post(`${BASE}/logout`),
    expect: { anonymous: 200, alice: 200, bob: 200, admin: 200 },
  },
  'GET /assistant.api.get_config': { request: (http) => http.get(api('get_config')), expect: everyone(200) },
  'GET /assistant.api.get_settings': {
    request: (http) => http.get(api('get_settings')),
    expect: { anonymous: 401, alice: 403, bob: 403, admin: 200 },
  },
  'POST /assistant.api.update_settings': {
    request: (http) => http.post(api('update_settings')).send({ settings: { 'assistant.language': 'en' } }),
    expect: { anonymous: 401, alice: 403, bob: 403, admin: 200 },
  },
  'POST /assistant.api.chat_with_tools': {
    request: (http, f) =>
      http
        .post(api('chat_with_tools'))
        .send({ user_message: 'What is in my notes?', conversation_id: f.conversationId }),
    expect: alicesOnly(200),
  },
  'POST /assistant.api.chat_with_tools_multimodal': {
    request: (http, f) =>
      http
        .post(api('chat_with_tools_multimodal'))
        .field('user_message', 'What does this file say?')
        .field('conversation_id', f.conversationId)
        .attach('files[]', Buffer.from('The harbour opens at nine.'), 'notes.txt'),
    expect: alicesOnly(200),
  },
  'GET /assistant.api.stream_ai_response': {
    request: (http, f) =>
      http.get(api('stream_ai_response')).query({ prompt: 'Hello there', conversation_id: f.conversationId }),
    expect: alicesOnly(200),
  },
  'POST /assistant.api.create_conversation': {
    request: (http) => http.post(api('create_conversation')).send({ title: 'Another one' }),
    expect: everyone(200),
  },
  'GET /assistant.api.list_conversations': {
    request: (http) => http.get(api('list_conversations')),
    expect: everyone(200),
    hides: (data, f) => expect(mentions(data, f.conversationId)).to.equal(false),
  },
  'GET /assistant.api.get_conversation_history': {
    request: (http, f) =>
      http.get(api('get_conversation_history')).query({ conversation_id: f.conversationId }),
    expect: alicesOnly(200),
  },
  'DELETE /assistant.api.delete_conversation': {
    request: (http, f) =>
      http.delete(api('delete_conversation')).query({ conversation_id: f.conversationId }),
    expect: alicesOnly(200),
  },
  'POST /assistant.api.restore_conversation': {
    request: (http, f) => http.post(api('restore_conversation')).send({ conversation_id: f.conversationId }),
    expect: alicesOnly(200),
  },
  'GET /assistant.api.search_conversations': {
    request: (http, f) => http.get(api('search_conversations')).query({ query: f.marker }),
    expect: everyone(200),
    hides: (data) => expect(data['results']).to.deep.equal([]),
  },
  'POST /assistant.api.start_onboarding': {
    request: (http) => http.post(api('start_onboarding')).send({ modules: ['assistant'] }),
    expect: everyone(200),
  },
  'POST /assistant.api.submit_onboarding_answer': {
    request: (http, f) =>
      http
        .post(api('submit_onboarding_answer'))
        .send({ session_id: f.sessionId, question_key: 'assistant.name', answer: 'Ada' }),
    expect: alicesOnly(200),
  },
  'GET /assistant.api.get_onboarding_status': {
    request: (http, f) => http.get(api('get_onboarding_status')).query({ session_id: f.sessionId }),
    expect: alicesOnly(200),
  },
  'POST /assistant.api.execute_onboarding_configuration': {
    request: (http, f) =>
      http.post(api('execute_onboarding_configuration')).send({ session_id: f.sessionId }),
    // Alice may: it runs, or waits for required answers (409); nobody else learns the session exists.
    expect: alicesOnly([200, 409]),
  },
  'GET /assistant.api.get_available_tools': {
    request: (http) => http.get(api('get_available_tools')),
    expect: everyone(200),
  },
  'POST /assistant.api.execute_tool': {
    request: (http) => http.post(api('execute_tool')).send({ tool_name: 'knowledge_stats', params: {} }),
    expect: everyone(200),
  },
  'GET /assistant.api.list_pending_actions': {
    request: (http) => http.get(api('list_pending_actions')),
    expect: everyone(200),
    hides: (data, f) => expect(mentions(data, f.actionId)).to.equal(false),
  },
  'POST /assistant.api.confirm_action': {
    request: (http, f) => http.post(api('confirm_action')).send({ action_id: f.actionId }),
    expect: alicesOnly(200),
  },
  'POST /assistant.api.reject_action': {
    request: (http, f) => http.post(api('reject_action')).send({ action_id: f.actionId, reason: 'not now' }),
    expect: alicesOnly(200),
  },
};

describe('Assistant API authorisation matrix: every endpoint × anonymous, alice, bob, admin', function () {
  this.timeout(60_000);
  let app: TestApp;
  const users: Partial<Record<Actor, TestUser>> = {};
  let routeKeys: string[];

  before(async () => {
    app = await startTestApp();
    users.alice = await addTestUser(app, 'alice');
    users.bob = await addTestUser(app, 'bob');
    users.admin = await addTestUser(app, 'root', { admin: true });
    const { runtime } = app;
    routeKeys = assistantApiRoutes({
      config: runtime.config,
      version: runtime.version,
      users: runtime.users,
      sessions: runtime.sessions,
      conversations: runtime.conversations,
      tools: runtime.tools,
      chat: runtime.chat,
      parser: runtime.parser,
      settings: runtime.settings,
      onboarding: runtime.onboarding,
    }).map((route) => `${route.method.toUpperCase()} ${route.path}`);
  });
  after(async () => {
    // update_settings changed the settings every suite of a cluster shares.
    await resetAssistantSettings(app.runtime);
    await app.stop();
  });

  /** As `actor`: alice's, bob's and the administrator's API keys; nothing for anonymous. */
  const as = (actor: Actor, test: supertest.Test): supertest.Test =>
    actor === 'anonymous' ? test : test.set('Authorization', users[actor]!.authorization);

  let fixtures = 0;
  async function aliceFixture(): Promise<Fixture> {
    fixtures += 1;
    const marker = `quokkamarker${fixtures}`;
    const alice = (test: supertest.Test) => as('alice', test);
    const created = await alice(
      app.http.post(api('create_conversation')).send({ title: `Notes ${marker}` }),
    ).expect(200);
    const conversationId = (created.body as Body).message.data!['conversation_id'] as string;
    const requested = await alice(
      app.http
        .post(api('execute_tool'))
        .send({ tool_name: 'cancel_task', params: { task_id: `task-${fixtures}` } }),
    ).expect(200);
    const actionId = (requested.body as Body).message.data!['action_id'] as string;
    const started = await alice(
      app.http.post(api('start_onboarding')).send({ modules: ['assistant'] }),
    ).expect(200);
    const sessionId = (started.body as Body).message.data!['session_id'] as string;
    expect(
      [conversationId, actionId, sessionId].every((id) => typeof id === 'string' && id.length > 0),
    ).to.equal(true);
    return { owner: users.alice!.name, conversationId, actionId, sessionId, marker };
  }

  it('covers every route of routes.ts, and nothing else', () => {
    expect(routeKeys.length).to.be.greaterThan(20);
    const missing = routeKeys.filter((key) => !(key in MATRIX));
    expect(missing, 'endpoints missing from the authorisation matrix').to.deep.equal([]);
    expect(Object.keys(MATRIX).filter((key) => !routeKeys.includes(key))).to.deep.equal([]);
  });

  for (const [key, row] of Object.entries(MATRIX)) {
    it(key, async () => {
      const fixture = await aliceFixture();
      // Alice last: her call may delete or decide the resource the others were refused.
      for (const actor of ['anonymous', 'bob', 'admin', 'alice'] as const) {
        const response = await as(actor, row.request(app.http, fixture));
        const expected = ([] as number[]).concat(row.expect[actor]);
        expect(expected, `${key} as ${actor}: ${response.status} ${response.text.slice(0, 200)}`).to.include(
          response.status,
        );
        const contentType = String(response.headers['content-type'] ?? '');
        if (!contentType.includes('application/json')) continue;
        const body = response.body as Body;
        if (response.status >= 400) {
          expect(body.message.success, `${key} as ${actor}`).to.equal(false);
          if (response.status === 404) expect(body.message.error?.type).to.match(/_not_found$/);
        } else if (actor !== 'alice' && row.hides && body.message.data) {
          row.hides(body.message.data, fixture);
        }
      }
    });
  }
});
