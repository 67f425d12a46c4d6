import { expect } from 'chai';
import { resetAssistantSettings } from '../support/assistantSettings.js';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const API = '/api/method/assistant.api';
type ErrorBody = {
  message: {
    success: false;
    data: null;
    error: { type: string; status_code: number; errors?: Array<{ field: string; message: string }> };
  };
};
type Tool = { name: string; requires_confirmation: boolean };

describe('Assistant API settings', function () {
  this.timeout(30_000);
  let app: TestApp;
  let admin: TestUser;
  let alice: TestUser;

  before(async () => {
    app = await startTestApp({ env: { API_KEYS: 'retrieval-key-123', OPENAI_API_KEY: 'sk-very-secret' } });
    // In a cluster the settings are every suite's: this suite starts from the defaults and leaves them.
    await resetAssistantSettings(app.runtime);
    admin = await addTestUser(app, 'root', { admin: true });
    alice = await addTestUser(app, 'alice');
  });
  after(async () => {
    await resetAssistantSettings(app.runtime);
    await app.stop();
  });

  const get = (user: TestUser | null, name: string, query: object = {}) => {
    const request = app.http.get(`${API}.${name}`).query(query);
    return user ? request.set('Authorization', user.authorization) : request;
  };
  const post = (user: TestUser | null, name: string, body: object) => {
    const request = app.http.post(`${API}.${name}`);
    return (user ? request.set('Authorization', user.authorization) : request).send(body);
  };
  const update = (user: TestUser | null, settings: object) => post(user, 'update_settings', { settings });
  function expectError(
    response: { body: unknown },
    status: number,
    type: string,
  ): ErrorBody['message']['error'] {
    const body = response.body as ErrorBody;
    expect(body.message).to.include({ success: false, data: null });
    expect(body.message.error).to.include({ type, status_code: status });
    return body.message.error;
  }

  it('get_settings: the configuration with secrets masked, and the assistant section with its defaults', async () => {
    const data = (await get(admin, 'get_settings').expect(200)).body.message.data;
    expect(data.source).to.equal('configuration');
    expect(data.settings.api_keys).to.deep.equal(['********']);
    expect(data.settings.openai_api_key).to.equal('********');
    expect(JSON.stringify(data)).to.not.include('sk-very-secret').and.not.include('retrieval-key-123');
    expect(data.assistant.persona).to.deep.equal({ name: 'Archivist', tone: null, instructions: null });
    expect(data.assistant).to.include({ language: 'auto', company_name: null });
    expect(data.assistant.chat).to.deep.equal({ max_tokens: 1024 });
    expect(data.assistant.changes).to.deep.equal({});
    const deletion = (data.assistant.tools as Array<Record<string, unknown>>).find(
      (tool) => tool['name'] === 'delete_document',
    );
    expect(deletion).to.include({ risk_level: 'high', policy: 'confirm' });
    await get(alice, 'get_settings').expect(403);
    await get(null, 'get_settings').expect(401);
  });

  it('get_config: the persona, language and enabled tools any user may know', async () => {
    const data = (await get(alice, 'get_config').expect(200)).body.message.data;
    expect(data.assistant).to.include({
      name: 'Archivist',
      language: 'auto',
      company_name: null,
      max_tokens: 1024,
    });
    expect(data.assistant.enabled_tools).to.include.members(['search_knowledge', 'delete_document']);
    expect(JSON.stringify(data)).to.not.include('instructions');
  });

  it('update_settings: administrators only; an unknown setting or a wrong value is 422 naming the field, and nothing changes', async () => {
    const recorded = (await app.runtime.eventStore.readStream('settings-assistant')).length;
    expectError(await update(alice, { 'assistant.name': 'Mallory' }).expect(403), 403, 'forbidden');
    await update(null, { 'assistant.name': 'Mallory' }).expect(401);
    const unknown = expectError(
      await update(admin, { 'assistant.name': 'Aria', 'assistant.colour': 'blue' }).expect(422),
      422,
      'validation_error',
    );
    expect(unknown.errors).to.deep.equal([
      { location: 'body', field: 'settings.assistant.colour', message: unknown.errors![0]!.message },
    ]);
    expect(unknown.errors![0]!.message).to.include('is not a setting');
    const wrongType = expectError(
      await update(admin, { 'chat.max_tokens': 'many' }).expect(422),
      422,
      'validation_error',
    );
    expect(wrongType.errors![0]).to.deep.include({
      field: 'settings.chat.max_tokens',
      message: 'must be integer',
    });
    const badPolicy = expectError(
      await update(admin, { 'tools.policy': { search_knowledge: 'sometimes' } }).expect(422),
      422,
      'validation_error',
    );
    expect(badPolicy.errors![0]).to.deep.include({ field: 'settings.tools.policy.search_knowledge' });
    const badTool = expectError(
      await update(admin, { 'tools.enabled': { launch_rockets: true } }).expect(422),
      422,
      'validation_error',
    );
    expect(badTool.errors![0]).to.deep.include({
      field: 'settings.tools.enabled.launch_rockets',
      message: 'is not a tool',
    });
    await post(admin, 'update_settings', {}).expect(422);
    const data = (await get(admin, 'get_settings').expect(200)).body.message.data;
    expect(data.assistant.persona.name).to.equal('Archivist');
    expect(await app.runtime.eventStore.readStream('settings-assistant')).to.have.length(recorded);
  });

  it('update_settings: changes the persona, language and max_tokens that get_config, get_settings and the chat engine see', async () => {
    const updated = await update(admin, {
      'assistant.name': 'Aria',
      'assistant.tone': 'warm and brief',
      'assistant.language': 'en',
      'chat.max_tokens': 300,
    }).expect(200);
    expect(updated.body.message.data.assistant.persona).to.deep.equal({
      name: 'Aria',
      tone: 'warm and brief',
      instructions: null,
    });
    const config = (await get(alice, 'get_config').expect(200)).body.message.data;
    expect(config.assistant).to.include({ name: 'Aria', language: 'en', max_tokens: 300 });
    const settings = (await get(admin, 'get_settings').expect(200)).body.message.data;
    expect(settings.assistant.changes['assistant.tone']).to.include({
      source: 'api',
      changed_by: `user:${admin.name}`,
      value: 'warm and brief',
    });
    const effective = await app.runtime.settings.assistantSettings();
    expect(effective.systemPrompt)
      .to.include('Your name is Aria.')
      .and.include('warm and brief')
      .and.include('English');
    expect(effective.maxTokens).to.equal(300);
    // null returns a setting to its default.
    await update(admin, { 'chat.max_tokens': null, 'assistant.tone': null }).expect(200);
    expect((await app.runtime.settings.assistantSettings()).maxTokens).to.equal(1024);
  });

  it('a tool whose policy is confirm becomes a pending action although its risk is low, and runs once confirmed', async () => {
    await update(admin, { 'tools.policy': { knowledge_stats: 'confirm' } }).expect(200);
    const listed = (await get(alice, 'get_available_tools').expect(200)).body.message.data.tools as Tool[];
    expect(listed.find((tool) => tool.name === 'knowledge_stats')).to.include({
      risk_level: 'low',
      requires_confirmation: true,
    });
    const call = await post(alice, 'execute_tool', { tool_name: 'knowledge_stats', params: {} }).expect(200);
    expect(call.body.message.data).to.include({ success: false, requires_confirmation: true });
    const actionId = call.body.message.data.action_id as string;
    const pending = (await get(alice, 'list_pending_actions').expect(200)).body.message.data.actions as Array<
      Record<string, unknown>
    >;
    expect(pending.map((action) => action['action_id'])).to.deep.equal([actionId]);
    expect(pending[0]).to.include({ tool_name: 'knowledge_stats', risk_level: 'low' });
    // None in a fresh app; in a cluster, what every suite left.
    const documents = (
      await app.http.get('/api/v1/documents').set('X-API-Key', 'retrieval-key-123').expect(200)
    ).body.total as number;
    const confirmed = await post(alice, 'confirm_action', { action_id: actionId }).expect(200);
    expect(confirmed.body.message.data).to.include({ success: true, status: 'executed' });
    expect(confirmed.body.message.data.result).to.include({ documents });
  });

  it('a disabled tool is neither listed nor executable (403 tool_disabled); tools.enabled false overrides a policy', async () => {
    await update(admin, { 'tools.policy': { search_knowledge: 'disabled', knowledge_stats: 'auto' } }).expect(
      200,
    );
    const listed = (await get(alice, 'get_available_tools', { category: 'knowledge' }).expect(200)).body
      .message.data.tools as Tool[];
    expect(listed.map((tool) => tool.name)).to.not.include('search_knowledge');
    expectError(
      await post(alice, 'execute_tool', { tool_name: 'search_knowledge', params: { query: 'x' } }).expect(
        403,
      ),
      403,
      'tool_disabled',
    );
    // Unknown tools stay 404, and params are not looked at for a disabled tool.
    await post(alice, 'execute_tool', { tool_name: 'no_such_tool', params: {} }).expect(404);
    await post(alice, 'execute_tool', { tool_name: 'search_knowledge', params: { bad: 1 } }).expect(403);
    expect(
      (await post(alice, 'execute_tool', { tool_name: 'knowledge_stats', params: {} }).expect(200)).body
        .message.data.success,
    ).to.equal(true);
    const config = (await get(alice, 'get_config').expect(200)).body.message.data;
    expect(config.assistant.enabled_tools).to.not.include('search_knowledge');
    // tools.enabled false switches a tool off whatever its policy.
    await update(admin, { 'tools.policy': null, 'tools.enabled': { knowledge_stats: false } }).expect(200);
    await post(alice, 'execute_tool', { tool_name: 'knowledge_stats', params: {} }).expect(403);
    await post(alice, 'execute_tool', { tool_name: 'search_knowledge', params: { query: 'x' } }).expect(200);
  });

  it('the chat engine follows the settings: a disabled tool is not called, a confirm tool waits for confirmation', async () => {
    await update(admin, { 'tools.policy': { query_knowledge: 'disabled' }, 'tools.enabled': null }).expect(
      200,
    );
    const question = { user_message: 'When does the harbour office open?', auto_execute_tools: true };
    const without = (await post(alice, 'chat_with_tools', question).expect(200)).body.message.data;
    expect((without.tool_calls as Array<{ name: string }>).map((call) => call.name)).to.not.include(
      'query_knowledge',
    );
    await update(admin, { 'tools.policy': { query_knowledge: 'confirm' } }).expect(200);
    const held = (await post(alice, 'chat_with_tools', question).expect(200)).body.message.data;
    const call = (held.tool_calls as Array<{ name: string; action_id?: string }>).find(
      (candidate) => candidate.name === 'query_knowledge',
    );
    expect(call?.action_id).to.be.a('string');
    const pending = (await get(alice, 'list_pending_actions').expect(200)).body.message.data.actions as Array<
      Record<string, unknown>
    >;
    expect(pending.map((action) => action['action_id'])).to.include(call!.action_id);
  });
});
