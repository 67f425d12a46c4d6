import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { resetAssistantSettings } from '../support/assistantSettings.js';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { clusterMode, documentSweeper, uniqueName } from '../support/cluster.js';
import { skipUnlessClusterScrapesLoopback } from '../support/clusterScrape.js';
import { eventually, type TestApp } from '../support/testApp.js';
import { startToolsApp } from '../support/toolsApp.js';
import { onboardingAggregate } from '../../src/commands/aggregates.js';
import { createCommandService } from '../../src/commands/commandService.js';

const API = '/api/method/assistant.api';
type Body = {
  message: {
    success: boolean;
    data: Record<string, unknown>;
    error?: { type: string; status_code: number; errors?: Array<{ field: string; message: string }> };
  };
};
type SessionData = {
  session_id: string;
  status: string;
  modules: string[];
  questions: Array<{ key: string; required: boolean; answered: boolean; answer?: unknown; schema: object }>;
  answered: string[];
  remaining: string[];
  required_remaining: string[];
  ready: boolean;
  configuration: {
    settings: Record<string, unknown>;
    ingestion: { urls: string[]; start_now: boolean; task_id: string | null } | null;
    tools: { enabled: string[]; disabled: string[]; confirm: string[] } | null;
  };
  executed_at: string | null;
};

const PAGE = `<html><head><title>Harbour opening hours</title></head><body><article><h1>Harbour opening hours</h1>
<p>The harbour office opens at seven and closes at nineteen, every day of the week except holidays.</p></article></body></html>`;

function expectError(body: Body, status: number, type: string): void {
  expect(body.message).to.include({ success: false, data: null });
  expect(body.message.error).to.include({ type, status_code: status });
}

describe('Assistant API onboarding (real SQLite stores, scraping a local server)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let admin: TestUser;
  let pages: Server;
  let base = '';
  let pageRequests = 0;
  const stored = documentSweeper();

  before(async () => {
    pages = createServer((request, response) => {
      if (request.url === '/harbour') {
        pageRequests += 1;
        response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      } else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    dataDir = await mkdtemp(join(tmpdir(), 'archivist-onboarding-'));
    app = await startToolsApp(dataDir, { env: { SCRAPE_ALLOWED_HOSTS: '127.0.0.1' } });
    await resetAssistantSettings(app.runtime);
    alice = await addTestUser(app, 'alice');
    bob = await addTestUser(app, 'bob');
    admin = await addTestUser(app, 'root', { admin: true });
  });
  after(async () => {
    // Onboarding changed the settings (and stored pages) that every suite of a cluster shares.
    await resetAssistantSettings(app.runtime);
    await stored.sweep((docId) => app.http.delete(`/api/v1/documents/${docId}`).expect(200));
    await app.stop();
    await rm(dataDir, { recursive: true, force: true });
    await new Promise<void>((resolve) => pages.close(() => resolve()));
  });

  const data = (response: { body: unknown }) => (response.body as Body).message.data;
  const session = (response: { body: unknown }) => data(response) as unknown as SessionData;
  const get = (user: TestUser | null, name: string, query: object = {}) => {
    const request = app.http.get(`${API}.${name}`).query(query);
    return user ? request.set('Authorization', user.authorization) : request;
  };
  const post = (user: TestUser | null, name: string, body: object) => {
    const request = app.http.post(`${API}.${name}`);
    return (user ? request.set('Authorization', user.authorization) : request).send(body);
  };
  const answer = (user: TestUser, sessionId: string, key: string, value: unknown) =>
    post(user, 'submit_onboarding_answer', { session_id: sessionId, question_key: key, answer: value });
  async function count(stream: string, type: string): Promise<number> {
    const events = await app.runtime.eventStore.readStream(stream);
    return events.filter((event) => event.type === type).length;
  }
  /** Applications of a session's settings (one event each). */
  async function settingsApplied(sessionId: string): Promise<number> {
    const events = await app.runtime.eventStore.readStream('settings-assistant');
    return events.filter(
      (event) => event.type === 'SettingsApplied' && event.data['applicationId'] === sessionId,
    ).length;
  }

  describe('start_onboarding', () => {
    it('starts a session of every module by default, with each question, its schema, and the company name pre-filled', async () => {
      const response = await post(alice, 'start_onboarding', { company_name: 'Acme Harbour' }).expect(200);
      const started = session(response);
      expect(started.status).to.equal('in_progress');
      expect(started.modules).to.deep.equal(['knowledge', 'assistant', 'tools']);
      expect(started.questions.map((question) => question.key)).to.deep.equal([
        'company_name',
        'knowledge.sources',
        'knowledge.ingest_now',
        'assistant.name',
        'assistant.language',
        'assistant.instructions',
        'tools.categories',
        'tools.high_risk_policy',
      ]);
      expect(started.questions[0]).to.include({ answered: true, answer: 'Acme Harbour', required: false });
      expect(started.answered).to.deep.equal(['company_name']);
      expect(started.required_remaining).to.deep.equal([
        'knowledge.sources',
        'assistant.name',
        'assistant.language',
      ]);
      expect(started.ready).to.equal(false);
      expect(started.questions[1]!.schema).to.include({ type: 'array' });
      expect(started.configuration.settings).to.include({ 'company.name': 'Acme Harbour' });
      expect(response.headers).to.have.property('x-ratelimit-limit');
    });

    it('sets up only the modules asked for, and refuses unknown ones', async () => {
      const started = session(await post(alice, 'start_onboarding', { modules: ['assistant'] }).expect(200));
      expect(started.modules).to.deep.equal(['assistant']);
      expect(started.questions.map((question) => question.key)).to.deep.equal([
        'company_name',
        'assistant.name',
        'assistant.language',
        'assistant.instructions',
      ]);
      expectError(
        (await post(alice, 'start_onboarding', { modules: ['weather'] }).expect(422)).body as Body,
        422,
        'validation_error',
      );
      expectError(
        (await post(alice, 'start_onboarding', { modules: [] }).expect(422)).body as Body,
        422,
        'validation_error',
      );
    });

    it('needs credentials', async () => {
      expectError(
        (await post(null, 'start_onboarding', {}).expect(401)).body as Body,
        401,
        'authentication_required',
      );
    });
  });

  describe('submit_onboarding_answer and get_onboarding_status', () => {
    let sessionId: string;
    before(async () => {
      sessionId = session(
        await post(alice, 'start_onboarding', { modules: ['knowledge', 'assistant'] }).expect(200),
      ).session_id;
    });

    it('records valid answers, shows what remains and the configuration they make', async () => {
      await answer(alice, sessionId, 'assistant.name', 'Aria').expect(200);
      const answered = session(
        await answer(alice, sessionId, 'knowledge.sources', [`${base}/harbour`]).expect(200),
      );
      // In the order the questions are asked, not the order of the answers.
      expect(answered.answered).to.deep.equal(['knowledge.sources', 'assistant.name']);
      const status = session(
        await get(alice, 'get_onboarding_status', { session_id: sessionId }).expect(200),
      );
      expect(status.answered).to.have.members(['knowledge.sources', 'assistant.name']);
      expect(status.remaining).to.have.members([
        'company_name',
        'knowledge.ingest_now',
        'assistant.language',
        'assistant.instructions',
      ]);
      expect(status.required_remaining).to.deep.equal(['assistant.language']);
      expect(status.configuration.settings).to.deep.equal({
        'assistant.name': 'Aria',
        'assistant.language': 'auto',
      });
      expect(status.configuration.ingestion).to.deep.equal({
        urls: [`${base}/harbour`],
        start_now: true,
        task_id: null,
      });
      expect(status.configuration.tools).to.equal(null);
      // A new answer replaces the previous one.
      await answer(alice, sessionId, 'assistant.name', 'Ariadne').expect(200);
      const renamed = session(
        await get(alice, 'get_onboarding_status', { session_id: sessionId }).expect(200),
      );
      expect(renamed.configuration.settings['assistant.name']).to.equal('Ariadne');
    });

    it('refuses an answer its question does not accept, naming the field', async () => {
      const badUrl = await answer(alice, sessionId, 'knowledge.sources', [
        'https://ok.example',
        'ftp://files.example',
      ]).expect(422);
      expectError(badUrl.body as Body, 422, 'validation_error');
      expect((badUrl.body as Body).message.error!.errors).to.deep.include({
        location: 'body',
        field: 'answer.1',
        message: 'must match pattern "^[hH][tT][tT][pP][sS]?://[^\\s/]+"',
      });
      const badLanguage = await answer(alice, sessionId, 'assistant.language', 'fr').expect(422);
      expect((badLanguage.body as Body).message.error!.errors![0]).to.include({ field: 'answer' });
      expect((badLanguage.body as Body).message.error!.errors![0]!.message).to.include('"ar"');
      const notString = await answer(alice, sessionId, 'assistant.name', 42).expect(422);
      expect((notString.body as Body).message.error!.errors![0]).to.deep.include({
        field: 'answer',
        message: 'must be string',
      });
      const missing = await post(alice, 'submit_onboarding_answer', {
        session_id: sessionId,
        question_key: 'assistant.name',
      }).expect(422);
      expectError(missing.body as Body, 422, 'validation_error');
    });

    it('refuses a question the session does not ask, naming question_key', async () => {
      for (const key of ['assistant.favourite_colour', 'tools.categories']) {
        const response = await answer(alice, sessionId, key, ['knowledge']).expect(422);
        expectError(response.body as Body, 422, 'unknown_question');
        expect((response.body as Body).message.error!.errors![0]).to.include({ field: 'question_key' });
      }
    });

    it("answers another user's session, or an unknown one, as nonexistent, and anonymous callers 401", async () => {
      expectError(
        (await answer(bob, sessionId, 'assistant.name', 'Bobby').expect(404)).body as Body,
        404,
        'onboarding_not_found',
      );
      expectError(
        (await get(bob, 'get_onboarding_status', { session_id: sessionId }).expect(404)).body as Body,
        404,
        'onboarding_not_found',
      );
      expectError(
        (await post(bob, 'execute_onboarding_configuration', { session_id: sessionId }).expect(404))
          .body as Body,
        404,
        'onboarding_not_found',
      );
      // Administrators too: they manage settings, not other people's sessions.
      await get(admin, 'get_onboarding_status', { session_id: sessionId }).expect(404);
      await get(alice, 'get_onboarding_status', { session_id: 'no-such-session' }).expect(404);
      await get(alice, 'get_onboarding_status', {}).expect(422);
      await get(null, 'get_onboarding_status', { session_id: sessionId }).expect(401);
      await post(null, 'submit_onboarding_answer', {
        session_id: sessionId,
        question_key: 'assistant.name',
        answer: 'x',
      }).expect(401);
      await post(null, 'execute_onboarding_configuration', { session_id: sessionId }).expect(401);
      // Bob's attempts changed nothing.
      const status = session(
        await get(alice, 'get_onboarding_status', { session_id: sessionId }).expect(200),
      );
      expect(status.configuration.settings['assistant.name']).to.equal('Ariadne');
    });

    it('refuses to execute while a required question is unanswered (409, naming it)', async () => {
      const response = await post(alice, 'execute_onboarding_configuration', {
        session_id: sessionId,
      }).expect(409);
      expectError(response.body as Body, 409, 'onboarding_incomplete');
      expect((response.body as Body).message.error)
        .to.have.property('message')
        .that.includes('assistant.language');
      expect(await count(`onboarding-${sessionId}`, 'OnboardingExecuted')).to.equal(0);
    });
  });

  describe('execute_onboarding_configuration', () => {
    let sessionId: string;
    let executed: SessionData;

    before(async () => {
      sessionId = session(
        await post(alice, 'start_onboarding', { company_name: 'Acme Harbour' }).expect(200),
      ).session_id;
      await answer(alice, sessionId, 'knowledge.sources', [`${base}/harbour`]).expect(200);
      await answer(alice, sessionId, 'assistant.name', 'Aria').expect(200);
      await answer(alice, sessionId, 'assistant.language', 'ar').expect(200);
      await answer(
        alice,
        sessionId,
        'assistant.instructions',
        'Mention the harbour office when relevant.',
      ).expect(200);
      await answer(alice, sessionId, 'tools.categories', ['knowledge', 'conversations']).expect(200);
      await answer(alice, sessionId, 'tools.high_risk_policy', 'disabled').expect(200);
    });

    it('runs once when two executions are asked at the same time: both answer the same completed session', async () => {
      const [first, second] = await Promise.all([
        post(alice, 'execute_onboarding_configuration', { session_id: sessionId }),
        post(alice, 'execute_onboarding_configuration', { session_id: sessionId }),
      ]);
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(second.status, JSON.stringify(second.body)).to.equal(200);
      executed = session(first);
      expect(session(second)).to.deep.equal(executed);
      expect(executed.status).to.equal('completed');
      expect(executed.executed_at).to.be.a('string');
      expect(executed.configuration.settings).to.deep.include({
        'company.name': 'Acme Harbour',
        'assistant.name': 'Aria',
        'assistant.language': 'ar',
        'assistant.instructions': 'Mention the harbour office when relevant.',
      });
      expect(executed.configuration.tools!.disabled).to.include.members([
        'delete_document',
        'list_tasks',
        'cancel_task',
      ]);
      expect(executed.configuration.tools!.enabled).to.include.members([
        'search_knowledge',
        'search_conversations',
      ]);
      expect(executed.configuration.ingestion!.task_id).to.be.a('string');
      expect(await count(`onboarding-${sessionId}`, 'OnboardingExecuted')).to.equal(1);
      expect(await settingsApplied(sessionId)).to.equal(1);
      expect(await count(`task-${executed.configuration.ingestion!.task_id}`, 'TaskCreated')).to.equal(1);
    });

    it('starts the ingestion of the given pages as a background task, which stores them', async function () {
      await skipUnlessClusterScrapesLoopback(this, app);
      const taskId = executed.configuration.ingestion!.task_id!;
      const task = await eventually(
        async () => {
          const response = await app.http.get(`/api/v1/tasks/${taskId}`).expect(200);
          return response.body.status === 'completed'
            ? (response.body as { result: { successful: number } })
            : undefined;
        },
        30_000,
        'the ingestion task completed',
      );
      stored.keep(task.result);
      expect(task.result.successful).to.equal(1);
      expect(pageRequests).to.equal(1);
      const search = await app.http
        .post('/api/v1/search')
        .send({ query: 'harbour office opens' })
        .expect(200);
      expect(search.body.results[0].source).to.equal(`${base}/harbour`);
    });

    it('answers the same result when executed again, and starts nothing new', async () => {
      // The page fetched once by the ingestion (none when a cluster's workers refuse loopback).
      const fetched = pageRequests;
      const again = session(
        await post(alice, 'execute_onboarding_configuration', { session_id: sessionId }).expect(200),
      );
      expect(again).to.deep.equal(executed);
      const status = session(
        await get(alice, 'get_onboarding_status', { session_id: sessionId }).expect(200),
      );
      expect(status).to.deep.equal(executed);
      expect(await count(`onboarding-${sessionId}`, 'OnboardingExecuted')).to.equal(1);
      expect(await settingsApplied(sessionId)).to.equal(1);
      expect(await count(`task-${executed.configuration.ingestion!.task_id}`, 'TaskCreated')).to.equal(1);
      expect(pageRequests).to.equal(fetched);
    });

    it('refuses answers once executed', async () => {
      const response = await answer(alice, sessionId, 'assistant.name', 'Other').expect(409);
      expectError(response.body as Body, 409, 'onboarding_completed');
    });

    it('changes the settings get_settings and get_config show, with source onboarding', async () => {
      const settings = data(await get(admin, 'get_settings').expect(200)) as {
        assistant: {
          persona: { name: string; instructions: string };
          language: string;
          company_name: string;
          system_prompt: string;
          tools: Array<{ name: string; policy: string }>;
          changes: Record<string, { source: string; changed_by: string }>;
        };
      };
      expect(settings.assistant.persona).to.include({
        name: 'Aria',
        instructions: 'Mention the harbour office when relevant.',
      });
      expect(settings.assistant).to.include({ language: 'ar', company_name: 'Acme Harbour' });
      expect(settings.assistant.system_prompt).to.include(
        'Your name is Aria, and you are the assistant of Acme Harbour.',
      );
      expect(settings.assistant.system_prompt).to.include('Arabic');
      expect(settings.assistant.changes['assistant.name']).to.deep.include({
        source: 'onboarding',
        changed_by: `user:${alice.name}`,
      });
      expect(settings.assistant.tools.find((tool) => tool.name === 'delete_document')).to.include({
        policy: 'disabled',
      });
      const config = data(await get(bob, 'get_config').expect(200)) as {
        assistant: { name: string; language: string; company_name: string; enabled_tools: string[] };
      };
      expect(config.assistant).to.include({ name: 'Aria', language: 'ar', company_name: 'Acme Harbour' });
      expect(config.assistant.enabled_tools)
        .to.include('search_knowledge')
        .and.not.include('delete_document');
      expect(config.assistant.enabled_tools).to.not.include('list_tasks');
      // What the chat engine uses.
      const effective = await app.runtime.settings.assistantSettings();
      expect(effective.persona.name).to.equal('Aria');
      expect(effective.language).to.equal('ar');
    });

    it('switches the tools it disabled off: neither listed nor executable', async () => {
      const listed = data(await get(bob, 'get_available_tools').expect(200)) as {
        tools: Array<{ name: string }>;
      };
      const names = listed.tools.map((tool) => tool.name);
      expect(names)
        .to.include('search_knowledge')
        .and.not.include.members(['delete_document', 'list_tasks', 'cancel_task']);
      const tasks = data(await get(bob, 'get_available_tools', { category: 'tasks' }).expect(200));
      expect(tasks['count']).to.equal(0);
      const refused = await post(bob, 'execute_tool', { tool_name: 'list_tasks', params: {} }).expect(403);
      expectError(refused.body as Body, 403, 'tool_disabled');
      await post(bob, 'execute_tool', { tool_name: 'delete_document', params: { doc_id: 'x' } }).expect(403);
      expect((data(await get(bob, 'list_pending_actions').expect(200)) as { count: number }).count).to.equal(
        0,
      );
      const allowed = await post(bob, 'execute_tool', { tool_name: 'knowledge_stats', params: {} }).expect(
        200,
      );
      expect(data(allowed)['success']).to.equal(true);
    });
  });

  it('executes a session without pages to ingest: settings only, no task', async () => {
    const started = session(await post(bob, 'start_onboarding', { modules: ['knowledge'] }).expect(200));
    await answer(bob, started.session_id, 'knowledge.sources', []).expect(200);
    const done = session(
      await post(bob, 'execute_onboarding_configuration', { session_id: started.session_id }).expect(200),
    );
    expect(done.status).to.equal('completed');
    expect(done.configuration).to.deep.equal({ settings: {}, ingestion: null, tools: null });
  });

  describe('after a crash between recording an execution and carrying it out', () => {
    it('the reactor carries it out: the settings applied and the ingestion task created, once', async () => {
      // The command alone, as a request that died right after appending OnboardingExecuted.
      const commands = createCommandService(onboardingAggregate, {
        eventStore: app.runtime.eventStore,
        clock: () => new Date(),
      });
      const carol = await addTestUser(app, 'carol');
      const caller = { actorId: `user:${carol.name}`, correlationId: 'crashed-request' };
      // In a cluster the session and the task outlive the run: ids of this run's own.
      const sessionId = uniqueName('crashed-session');
      const ingestionTaskId = clusterMode() ? randomUUID() : 'crashed-ingestion';
      await commands.execute(
        'StartOnboarding',
        { sessionId, owner: carol.name, modules: ['knowledge', 'assistant'], companyName: null },
        caller,
      );
      const answers: Array<[string, string | string[]]> = [
        ['knowledge.sources', [`${base}/harbour`]],
        ['assistant.name', 'Nemo'],
        ['assistant.language', 'auto'],
      ];
      for (const [questionKey, answer] of answers) {
        await commands.execute(
          'SubmitOnboardingAnswer',
          { sessionId, owner: carol.name, questionKey, answer },
          caller,
        );
      }
      const executed = await commands.execute(
        'ExecuteOnboarding',
        { sessionId, owner: carol.name, tools: [], ingestionTaskId },
        caller,
      );
      expect(executed.appended.map((event) => event.type)).to.deep.equal(['OnboardingExecuted']);

      await eventually(
        async () => ((await settingsApplied(sessionId)) === 1 ? true : undefined),
        10_000,
        'the settings applied',
      );
      expect((await app.runtime.settings.assistantSettings()).persona.name).to.equal('Nemo');
      await eventually(
        async () => ((await count(`task-${ingestionTaskId}`, 'TaskCreated')) === 1 ? true : undefined),
        10_000,
        'the ingestion task created',
      );
      // Asking again (the client retrying) changes nothing more.
      const again = session(
        await post(carol, 'execute_onboarding_configuration', { session_id: sessionId }).expect(200),
      );
      expect(again.configuration.ingestion!.task_id).to.equal(ingestionTaskId);
      expect(await settingsApplied(sessionId)).to.equal(1);
      expect(await count(`task-${ingestionTaskId}`, 'TaskCreated')).to.equal(1);
      if (clusterMode()) {
        // The cluster's workers run it after the test: what it stores must not outlive the suite.
        const ingested = await eventually(
          async () => {
            const task = (await app.http.get(`/api/v1/tasks/${ingestionTaskId}`).expect(200)).body;
            return ['completed', 'failed'].includes(task.status as string) ? task : undefined;
          },
          30_000,
          'the ingestion task finished',
        );
        stored.keep(ingested.result);
      }
    });
  });
});
