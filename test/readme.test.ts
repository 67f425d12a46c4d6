import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../src/config.js';
import { MODULES } from '../src/runtime.js';
import { parseMilvusUrl } from '../src/vector/milvusUrl.js';

const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('gives the two-command quick start', () => {
    expect(readme).to.include('npm ci && npm start').and.include('npm ci && npm test');
  });

  it('documents every configuration variable, with its default and meaning', () => {
    for (const variable of CONFIG_VARIABLES) {
      const row = `| \`${variable.name}\` | ${variable.default.startsWith('(') ? variable.default : `\`${variable.default}\``} | ${variable.meaning} |`;
      expect(readme, variable.name).to.include(row);
    }
  });

  it('lists no variable the code does not read', () => {
    const documented = [...readme.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]);
    expect(documented).to.have.members(CONFIG_VARIABLES.map((variable) => variable.name));
  });
});

describe('configuration', () => {
  it('defaults to everything embedded', () => {
    const config = loadConfig({});
    expect(config).to.include({
      host: '127.0.0.1',
      port: 8000,
      eventStore: 'file',
      bus: 'memory',
      readStore: 'embedded',
    });
    expect(config.apiKeys).to.deep.equal([]);
  });

  it('rejects wrong values naming the variable', () => {
    expect(() => loadConfig({ PORT: '70000' })).to.throw('PORT must be an integer from 0 to 65535');
    expect(() => loadConfig({ BUS: 'kafka' })).to.throw('BUS must be one of memory, nats');
    expect(() => loadConfig({ BUS: 'nats' })).to.throw('NATS_URL is required when BUS=nats');
    expect(() => loadConfig({ READ_STORE: 'mongodb', MONGODB_URL: 'not a url' })).to.throw(
      'MONGODB_URL is not a valid URL',
    );
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).to.throw('LOG_LEVEL must be one of');
    expect(() => loadConfig({ VECTOR_STORE: 'milvus' })).to.throw(
      'MILVUS_URL is required when VECTOR_STORE=milvus',
    );
    expect(() => loadConfig({ VECTOR_STORE: 'milvus', MILVUS_URL: 'grpc://milvus:19530' })).to.throw(
      'MILVUS_URL: unsupported scheme grpc:',
    );
  });

  it('refuses an engine address given for a port configured to another adapter, instead of ignoring it', () => {
    expect(() => loadConfig({ MILVUS_URL: 'http://127.0.0.1:19530' })).to.throw(
      'MILVUS_URL is set but VECTOR_STORE is "embedded": set VECTOR_STORE=milvus to use it, or unset MILVUS_URL',
    );
    expect(() =>
      loadConfig({ EVENT_STORE: 'esdb', EVENTSTORE_URL: 'esdb://h:2113', POSTGRES_URL: 'postgres://h/db' }),
    ).to.throw('POSTGRES_URL is set but EVENT_STORE is "esdb"');
    expect(() => loadConfig({ MONGODB_URL: 'mongodb://h:27017' })).to.throw(
      'MONGODB_URL is set but READ_STORE',
    );
    expect(() => loadConfig({ NATS_URL: 'nats://h:4222' })).to.throw('NATS_URL is set but BUS');
    // Every engine named and used: accepted, uploads then travel through NATS's object store.
    expect(
      loadConfig({
        EVENT_STORE: 'postgres',
        POSTGRES_URL: 'postgres://archivist@h:5432/archivist',
        BUS: 'nats',
        NATS_URL: 'nats://h:4222',
        READ_STORE: 'mongodb',
        MONGODB_URL: 'mongodb://h:27017',
        VECTOR_STORE: 'milvus',
        MILVUS_URL: 'http://h:19530',
      }),
    ).to.include({ eventStore: 'postgres', blobStore: 'nats', vectorStore: 'milvus' });
    // BLOB_STORE=nats alone uses NATS for uploads only.
    expect(loadConfig({ BLOB_STORE: 'nats', NATS_URL: 'nats://h:4222' })).to.include({
      bus: 'memory',
      blobStore: 'nats',
    });
  });

  it('reads Milvus addresses with or without a scheme, keeping credentials out of what it shows', () => {
    expect(loadConfig({ VECTOR_STORE: 'milvus', MILVUS_URL: 'milvus:19530' })).to.include({
      vectorStore: 'milvus',
      milvusUrl: 'milvus:19530',
      milvusToken: null,
    });
    expect(parseMilvusUrl('milvus:19530')).to.deep.equal({
      address: 'milvus:19530',
      ssl: false,
      token: null,
      display: 'http://milvus:19530',
    });
    expect(parseMilvusUrl('https://root:s%40cret@db.example.com')).to.deep.equal({
      address: 'db.example.com:443',
      ssl: true,
      token: 'root:s@cret',
      display: 'https://db.example.com:443',
    });
    expect(parseMilvusUrl('http://u:p@127.0.0.1:19530', 'api-key').token).to.equal('api-key');
    expect(() => parseMilvusUrl('http://127.0.0.1:19530/db')).to.throw('not a Milvus address');
  });
});

describe('configuration declared by the modules', () => {
  it('reads every variable a module declares, and declares none twice', () => {
    const read = CONFIG_VARIABLES.map((variable) => variable.name);
    expect(new Set(read).size, 'a variable declared twice').to.equal(read.length);
    for (const module of MODULES) {
      for (const variable of module.settings?.variables ?? []) {
        expect(read, `${module.name}: ${variable.name}`).to.include(variable.name);
      }
    }
  });

  it('gives each module its part from its own variables, checked by their schemas', () => {
    const config = loadConfig({
      CONVERSATION_PURGE_AFTER_DAYS: '7',
      ACTION_EXPIRY_MINUTES: '5',
      TASK_HEARTBEAT_MS: '200',
      API_KEYS: 'a, b,a,,',
    });
    expect(config).to.include({
      conversationPurgeAfterMs: 7 * 86_400_000,
      actionExpiryMs: 5 * 60_000,
      taskHeartbeatMs: 200,
      // Derived from another variable when not set itself.
      taskClaimTimeoutMs: 600,
    });
    expect(config.apiKeys).to.deep.equal(['a', 'b']);
    expect(() => loadConfig({ ACTION_EXPIRY_MINUTES: '1.5' })).to.throw(
      ConfigError,
      'ACTION_EXPIRY_MINUTES must be an integer from 1 to 525600, got "1.5"',
    );
    expect(() => loadConfig({ SESSION_COOKIE_SECURE: 'yes' })).to.throw(
      ConfigError,
      'SESSION_COOKIE_SECURE must be one of true, false, got "yes"',
    );
    expect(() => loadConfig({ READY_REQUIRES: 'embedder,nonsense' })).to.throw(
      ConfigError,
      'READY_REQUIRES has unknown nonsense; allowed:',
    );
  });
});
