import { runCli } from '../support/runCli.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { silentLogger } from '../../src/log.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';

const run = runCli;

describe('archivist settings', function () {
  this.timeout(90_000);
  let dataDir: string;
  let env: Record<string, string>;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'archivist-settings-'));
    env = { DATA_DIR: dataDir };
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses get on a folder without data, and usage mistakes with exit status 2', () => {
    const missing = run(['settings', 'get'], env);
    expect(missing.status).to.equal(2);
    expect(missing.stderr).to.include(`no Archivist data in ${dataDir}`);
    expect(run(['settings'], env).status).to.equal(2);
    expect(run(['settings', 'frobnicate'], env).status).to.equal(2);
    expect(run(['settings', 'set', 'assistant.name'], env).status).to.equal(2);
  });

  it('sets a setting on a fresh install (JSON values, or plain text) and prints it with who set it', () => {
    const set = run(['settings', 'set', 'assistant.name', '"Aria"'], env);
    expect(set.status, set.stderr).to.equal(0);
    expect(JSON.parse(set.stdout)).to.include({
      name: 'assistant.name',
      value: 'Aria',
      source: 'cli',
      changed: true,
    });
    expect(JSON.parse(set.stdout).changed_by).to.match(/^cli:/);
    const again = run(['settings', 'set', 'assistant.name', 'Aria'], env);
    expect(JSON.parse(again.stdout)).to.include({ value: 'Aria', changed: false });
    const one = run(['settings', 'get', 'assistant.language'], env);
    expect(JSON.parse(one.stdout)).to.include({
      name: 'assistant.language',
      value: 'auto',
      default: 'auto',
      source: null,
    });
    const all = JSON.parse(run(['settings', 'get'], env).stdout) as Record<string, { value: unknown }>;
    expect(Object.keys(all)).to.include.members([
      'assistant.name',
      'tools.enabled',
      'tools.policy',
      'chat.max_tokens',
    ]);
    expect(all['assistant.name']!.value).to.equal('Aria');
  });

  it('refuses an unknown setting, a value of the wrong type and an unknown tool (exit status 1, naming the field)', () => {
    const unknown = run(['settings', 'set', 'assistant.colour', '"blue"'], env);
    expect(unknown.status).to.equal(1);
    expect(unknown.stderr).to.include('assistant.colour is not a setting');
    const wrongType = run(['settings', 'set', 'chat.max_tokens', '"many"'], env);
    expect(wrongType.status).to.equal(1);
    expect(wrongType.stderr).to.include('chat.max_tokens must be integer');
    const badLanguage = run(['settings', 'set', 'assistant.language', 'fr'], env);
    expect(badLanguage.status).to.equal(1);
    expect(badLanguage.stderr).to.include('must be one of "en", "ar", "auto"');
    const badTool = run(['settings', 'set', 'tools.policy', '{"launch_rockets":"auto"}'], env);
    expect(badTool.status).to.equal(1);
    expect(badTool.stderr).to.include('tools.policy.launch_rockets is not a tool');
    expect(run(['settings', 'get', 'assistant.colour'], env).status).to.equal(1);
  });

  describe('beside a running server', () => {
    let runtime: Runtime;
    let http: ReturnType<typeof supertest>;
    let authorization: string;
    before(async () => {
      runtime = await createRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), {
        log: silentLogger,
      });
      await runtime.start();
      http = supertest(createApp(runtime).callback());
      const caller = { actorId: 'test', correlationId: 'cli-settings' };
      await runtime.users.add('admin', { admin: true }, caller);
      authorization = `token ${(await runtime.users.issueKey('admin', caller)).key}`;
    });
    after(() => runtime.stop());

    it('shows a change the CLI makes at once over HTTP (get_config, get_settings, tools)', async () => {
      const config = '/api/method/assistant.api.get_config';
      const before = await http.get(config).set('Authorization', authorization).expect(200);
      expect(before.body.message.data.assistant).to.include({ name: 'Aria', language: 'auto' });

      expect(run(['settings', 'set', 'assistant.language', 'en'], env).status).to.equal(0);
      expect(run(['settings', 'set', 'tools.enabled', '{"knowledge_stats":false}'], env).status).to.equal(0);
      const after = await http.get(config).set('Authorization', authorization).expect(200);
      expect(after.body.message.data.assistant).to.include({ name: 'Aria', language: 'en' });
      expect(after.body.message.data.assistant.enabled_tools).to.not.include('knowledge_stats');
      const settings = await http
        .get('/api/method/assistant.api.get_settings')
        .set('Authorization', authorization)
        .expect(200);
      expect(settings.body.message.data.assistant.changes['assistant.language']).to.include({
        source: 'cli',
      });
      await http
        .post('/api/method/assistant.api.execute_tool')
        .set('Authorization', authorization)
        .send({ tool_name: 'knowledge_stats', params: {} })
        .expect(403);

      // null returns a setting to its default.
      expect(run(['settings', 'set', 'tools.enabled', 'null'], env).status).to.equal(0);
      const restored = await http.get(config).set('Authorization', authorization).expect(200);
      expect(restored.body.message.data.assistant.enabled_tools).to.include('knowledge_stats');
    });
  });
});
