import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createHttpKnowledgeClient } from '../../src/cli/people/httpKnowledgeClient.js';
import { KnowledgeUnavailableError } from '../../src/cli/people/knowledgeClient.js';
import { openLocalKnowledgeClient } from '../../src/cli/people/localKnowledgeClient.js';
import { loadConfig } from '../../src/config.js';
import { addTestUser } from '../support/assistantUsers.js';
import { expectRejection } from '../support/expectRejection.js';
import { freePort } from '../support/freePort.js';
import { startTestApp } from '../support/testApp.js';
import { CONTRACT_ENV, knowledgeClientContract } from './knowledgeClient.contract.js';

knowledgeClientContract('over HTTP (a running server, a user key pair)', async () => {
  const app = await startTestApp({ env: CONTRACT_ENV });
  const { url } = await app.server();
  const user = await addTestUser(app, 'reader');
  const client = createHttpKnowledgeClient({ url, key: user.authorization.replace(/^token /, '') });
  return { client, stop: () => app.stop() };
});

knowledgeClientContract('in-process on a local DATA_DIR', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'archivist-local-client-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...CONTRACT_ENV });
  const client = await openLocalKnowledgeClient(config, { mustExist: false });
  return { client, stop: () => rm(dataDir, { recursive: true, force: true }) };
});

describe('KnowledgeClient over HTTP: keys and reachability', function () {
  this.timeout(60_000);

  it('sends a service key as X-API-Key, and says a refused key is a refused key', async () => {
    const app = await startTestApp({ env: { API_KEYS: 'service-key-1' } });
    try {
      const { url } = await app.server();
      const served = createHttpKnowledgeClient({ url: `${url}/api/v1/`, key: 'service-key-1' });
      expect(await served.search('anything at all', { limit: 1 })).to.deep.equal([]);
      const wrong = createHttpKnowledgeClient({ url, key: 'wrong-key' });
      const refused = await expectRejection(
        wrong.search('anything', { limit: 1 }),
        KnowledgeUnavailableError,
      );
      expect(refused.message).to.equal(
        'search: 403 invalid_api_key: The API key in X-API-Key is not valid (check ARCHIVIST_KEY)',
      );
      const none = createHttpKnowledgeClient({ url, key: undefined });
      const missing = await expectRejection(none.ask('anything?', { limit: 1 }), KnowledgeUnavailableError);
      expect(missing.message).to.match(/^ask: 401 missing_api_key: /);
    } finally {
      await app.stop();
    }
  });

  it('says a server that is not there cannot be reached', async () => {
    const port = await freePort();
    const client = createHttpKnowledgeClient({ url: `http://127.0.0.1:${port}`, key: undefined });
    const unreachable = await expectRejection(
      client.search('anything', { limit: 1 }),
      KnowledgeUnavailableError,
    );
    expect(unreachable.message).to.equal(`cannot reach http://127.0.0.1:${port}/api/v1: ECONNREFUSED`);
  });
});

describe('KnowledgeClient on a local DATA_DIR: the folder lock', function () {
  this.timeout(60_000);

  it('refuses a data folder a server holds, and points to --url', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'archivist-locked-'));
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const first = await openLocalKnowledgeClient(config, { mustExist: false });
    try {
      const refused = await expectRejection(
        openLocalKnowledgeClient(config, { mustExist: false }),
        KnowledgeUnavailableError,
      );
      expect(refused.message).to.match(
        new RegExp(`^a server is running on DATA_DIR \\(${dataDir}\\); use --url`),
      );
    } finally {
      await first.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to search a data folder with no data', async () => {
    const dataDir = join(tmpdir(), `archivist-nothing-${process.pid}-${Date.now()}`);
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const refused = await expectRejection(
      openLocalKnowledgeClient(config, { mustExist: true }),
      KnowledgeUnavailableError,
    );
    expect(refused.message).to.equal(
      `no Archivist data in ${dataDir} (no events.db there): check DATA_DIR, or use --url`,
    );
  });
});
