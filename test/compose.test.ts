import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { isEmbedded, loadConfig } from '../src/config.js';

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}

const compose = parse(readFileSync(join(import.meta.dirname, '..', 'docker-compose.yml'), 'utf8'), {
  merge: true,
}) as {
  services: Record<string, Service>;
};

describe('docker-compose.yml', () => {
  const archivist = ['api', 'worker', 'projector'] as const;

  it('runs each role of Archivist as its own service with a known command', () => {
    expect(archivist.map((name) => compose.services[name]?.command)).to.deep.equal([
      ['serve'],
      ['worker'],
      ['project'],
    ]);
  });

  it('gives every Archivist service a configuration the code accepts, on shared engines', () => {
    for (const name of archivist) {
      const environment = Object.fromEntries(
        Object.entries(compose.services[name]!.environment ?? {}).map(([key, value]) => [
          key,
          String(value).replace(/\$\{[A-Z_]+:-([^}]*)\}/, '$1'),
        ]),
      );
      const config = loadConfig(environment);
      expect(config, name).to.include({
        eventStore: 'esdb',
        bus: 'nats',
        readStore: 'mongodb',
        vectorStore: 'milvus',
        milvusUrl: 'http://milvus:19530',
      });
      expect(isEmbedded(config), name).to.equal(false);
    }
  });

  it('starts Archivist only once its engines are healthy, and checks every service', () => {
    for (const name of archivist) {
      expect(Object.keys(compose.services[name]!.depends_on ?? {}), name).to.include.members([
        'eventstore',
        'nats',
        'mongodb',
        'milvus',
      ]);
    }
    for (const [name, service] of Object.entries(compose.services))
      expect(service.healthcheck, name).to.not.equal(undefined);
  });
});
