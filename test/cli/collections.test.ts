import { runCli } from '../support/runCli.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { silentLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';

const run = runCli;

describe('archivist collections', function () {
  this.timeout(120_000);
  let dataDir: string;
  let env: Record<string, string>;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'archivist-collections-'));
    env = { DATA_DIR: dataDir };
    // A data folder with an event log, as after `archivist users add`.
    expect(run(['users', 'add', 'alice'], env).status).to.equal(0);
    expect(run(['users', 'add', 'bob'], env).status).to.equal(0);
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('grants, lists and revokes access, refusing bad names, levels and unknown grants', () => {
    const granted = run(['collections', 'grant', 'finance', 'alice', 'write'], env);
    expect(granted.status, granted.stderr).to.equal(0);
    expect(JSON.parse(granted.stdout)).to.deep.equal({
      collection: 'finance',
      user: 'alice',
      level: 'write',
    });
    expect(run(['collections', 'grant', 'finance', 'bob', 'read'], env).status).to.equal(0);
    const listed = run(['collections', 'list'], env);
    expect(JSON.parse(listed.stdout)).to.deep.equal([
      { collection: 'finance', grants: { alice: 'write', bob: 'read' } },
    ]);

    const badLevel = run(['collections', 'grant', 'finance', 'bob', 'admin'], env);
    expect(badLevel.status).to.equal(2);
    expect(badLevel.stderr).to.include('the level is read or write, not admin');
    const badName = run(['collections', 'grant', 'Finance Team', 'bob', 'read'], env);
    expect(badName.status).to.equal(1);
    expect(badName.stderr).to.include('Collection names are lower-case letters');
    const unknown = run(['collections', 'revoke', 'finance', 'carol'], env);
    expect(unknown.status).to.equal(1);
    expect(unknown.stderr).to.include('carol has no grant on collection finance');

    expect(run(['collections', 'revoke', 'finance', 'bob'], env).status).to.equal(0);
    expect(JSON.parse(run(['collections', 'list'], env).stdout)).to.deep.equal([
      { collection: 'finance', grants: { alice: 'write' } },
    ]);
  });

  it('makes the grants hold in a server started on that data', async () => {
    const runtime = await createRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), {
      log: silentLogger,
    });
    await runtime.start();
    try {
      const bobKey = await runtime.users.issueKey('bob', { actorId: 'test', correlationId: 'k' });
      const refused = await supertest(createApp(runtime).callback())
        .post('/api/v1/upload')
        .set('Authorization', `token ${bobKey.key}`)
        .field('collection', 'finance')
        .attach('file', Buffer.from('# Budget\n\nThe budget.\n'), 'budget.md')
        .expect(403);
      expect(refused.body).to.include({ error: 'collection_forbidden' });
    } finally {
      await runtime.stop();
    }
  });
});
