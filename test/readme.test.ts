import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { CONFIG_VARIABLES, loadConfig } from '../src/config.js';

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
  });
});
