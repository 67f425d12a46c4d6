import { runCli } from '../support/runCli.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { silentLogger } from '../../src/log.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';

const run = runCli;

describe('archivist users', function () {
  this.timeout(90_000);
  let dataDir: string;
  let env: Record<string, string>;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'archivist-users-'));
    env = { DATA_DIR: dataDir };
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates the first administrator on a fresh install, with a password from standard input', () => {
    expect(existsSync(join(dataDir, 'events.db'))).to.equal(false);
    const added = run(
      ['users', 'add', 'admin', '--admin', '--password-stdin'],
      env,
      'a long enough password\n',
    );
    expect(added.status, added.stderr).to.equal(0);
    expect(JSON.parse(added.stdout)).to.include({ user: 'admin', admin: true, password: true });
    const again = run(['users', 'add', 'ADMIN'], env);
    expect(again.status).to.equal(1);
    expect(again.stderr).to.include('A user named ADMIN exists already');
    const weak = run(['users', 'add', 'eve', '--password-stdin'], env, 'short\n');
    expect(weak.status).to.equal(1);
    expect(weak.stderr).to.include('at least 8 characters');
    expect(run(['users', 'add', 'bad name'], env).status).to.equal(1);
  });

  it('refuses unknown subcommands, and commands other than add on a folder without data', () => {
    expect(run(['users', 'frobnicate'], env).status).to.equal(2);
    const missing = join(dataDir, 'nothing-here');
    const result = run(['users', 'list'], { DATA_DIR: missing });
    expect(result.status).to.equal(2);
    expect(result.stderr).to.include(`no Archivist data in ${missing}`);
    expect(existsSync(missing)).to.equal(false);
  });

  describe('beside a running server', () => {
    let runtime: Runtime;
    let http: ReturnType<typeof supertest>;
    before(async () => {
      runtime = await createRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), {
        log: silentLogger,
      });
      await runtime.start();
      http = supertest(createApp(runtime).callback());
    });
    after(() => runtime.stop());

    it('issues a key that works at once, prints it once, lists no secret, and revokes it at once', async () => {
      const issued = run(['users', 'key', 'admin'], env);
      expect(issued.status, issued.stderr).to.equal(0);
      const key = issued.stdout.trim();
      expect(key).to.match(/^[0-9a-f]{28}:[A-Za-z0-9_-]{43}$/);
      expect(issued.stderr).to.include('shown this once');
      const config = '/api/method/assistant.api.get_config';
      const me = await http.get(config).set('Authorization', `token ${key}`).expect(200);
      expect(me.body.message.data.user).to.deep.equal({ name: 'admin', admin: true, auth_method: 'api_key' });
      await http
        .get('/api/method/assistant.api.get_settings')
        .set('Authorization', `token ${key}`)
        .expect(200);

      const listed = run(['users', 'list'], env);
      expect(listed.status).to.equal(0);
      const [user] = JSON.parse(listed.stdout) as Array<{
        user: string;
        api_keys: Array<{ key_id: string }>;
      }>;
      expect(user).to.include({ user: 'admin' });
      expect(user!.api_keys.map((apiKey) => apiKey.key_id)).to.deep.equal([key.split(':')[0]]);
      expect(listed.stdout).to.not.include(key.split(':')[1]).and.not.include('scrypt');

      const revoked = run(['users', 'revoke', 'admin', key.split(':')[0]!], env);
      expect(revoked.status, revoked.stderr).to.equal(0);
      await http.get(config).set('Authorization', `token ${key}`).expect(401);
      expect(run(['users', 'revoke', 'admin', 'no-such-key'], env).status).to.equal(1);
    });

    it('sets a password and makes an administrator', async () => {
      expect(run(['users', 'add', 'bea'], env).status).to.equal(0);
      expect(run(['users', 'password', 'bea'], env, 'bea-password-1\n').status).to.equal(0);
      const login = await http
        .post('/api/method/login')
        .send({ usr: 'bea', pwd: 'bea-password-1' })
        .expect(200);
      expect(login.body.message.data.admin).to.equal(false);
      expect(run(['users', 'admin', 'bea'], env).status).to.equal(0);
      const cookie = String(login.headers['set-cookie']).split(';')[0]!;
      // Her session sees the new role at once.
      await http.get('/api/method/assistant.api.get_settings').set('Cookie', cookie).expect(200);
    });
  });
});
