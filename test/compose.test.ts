import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { isEmbedded, loadConfig } from '../src/config.js';

/**
 * docker-compose.yml checked twice: as plain YAML (always), and as Docker Compose itself loads it —
 * interpolated, profiles applied, normalised — by .ci/compose-check, a Go program on compose-go (the
 * loader of Docker Compose), which .ci/provision builds. There is no Docker engine in CI.
 */

const root = join(import.meta.dirname, '..');
const composeFile = join(root, 'docker-compose.yml');

const topology = JSON.parse(readFileSync(join(root, 'scripts', 'cluster-topology.json'), 'utf8')) as {
  engines: string[];
  roles: Record<string, { command: string; replicas: number }>;
  environment: Record<string, string>;
  addresses: Record<string, string>;
};
const ROLES = Object.keys(topology.roles);
const BALANCER = 'balancer';

/**
 * What each image can run in a healthcheck, from its published Dockerfile (see the comment beside
 * each healthcheck in docker-compose.yml). `shell`: whether CMD-SHELL can work at all.
 */
const IMAGE_TOOLS: Record<string, { tools: string[]; shell: boolean }> = {
  // node:20-bookworm-slim (our Dockerfile): node, no curl, no wget.
  'archivist:local': { tools: ['node'], shell: true },
  // alpine base: BusyBox wget.
  'nginx:1.28-alpine': { tools: ['wget'], shell: true },
  'nats:2.10-alpine': { tools: ['wget'], shell: true },
  // The 24.10 Dockerfile installs curl on the runtime-deps (Ubuntu) base.
  'docker.eventstore.com/eventstore/eventstoredb-ee:24.10': { tools: ['curl'], shell: true },
  // Server binaries on PATH (/usr/lib/postgresql/15/bin).
  'postgres:15': { tools: ['pg_isready', 'psql'], shell: true },
  // The mongodb-org packages bring mongosh.
  'mongo:7': { tools: ['mongosh'], shell: true },
  // Distroless: etcd, etcdctl, etcdutl and nothing else, not even a shell.
  'quay.io/coreos/etcd:v3.5.18': { tools: ['etcdctl'], shell: false },
  // mc on every architecture; curl only on amd64 (a static build), so not counted.
  'minio/minio:RELEASE.2024-05-28T17-19-04Z': { tools: ['mc'], shell: true },
  // Ubuntu 22.04 base with curl installed by Milvus's Dockerfile.
  'milvusdb/milvus:v2.5.16': { tools: ['curl'], shell: true },
};

interface Volume {
  type?: string;
  source?: string;
  target?: string;
}
interface Port {
  target?: number | string;
  published?: string | number;
  host_ip?: string;
}
interface Service {
  image?: string;
  command?: string[] | string;
  profiles?: string[];
  environment?: Record<string, string | null> | string[];
  depends_on?: Record<string, { condition: string; required?: boolean }>;
  healthcheck?: { test?: string[] | string; disable?: boolean };
  deploy?: { replicas?: number };
  volumes?: (Volume | string)[];
  volumes_from?: string[];
  ports?: (Port | string)[];
  configs?: ({ source: string; target?: string } | string)[];
}
interface Project {
  services: Record<string, Service>;
  configs?: Record<string, { content?: string }>;
  volumes?: Record<string, unknown>;
}

/** The first word a healthcheck runs, and whether it runs through a shell. */
function healthTool(test: string[] | string | undefined): { tool: string; shell: boolean } | null {
  if (!test || test.length === 0) return null;
  if (typeof test === 'string') return { tool: test.trim().split(/\s+/)[0]!, shell: true };
  if (test[0] === 'CMD') return { tool: test[1] ?? '', shell: false };
  if (test[0] === 'CMD-SHELL') return { tool: (test[1] ?? '').trim().split(/\s+/)[0]!, shell: true };
  return null;
}

function expectWorkingHealthchecks(services: Record<string, Service>): void {
  for (const [name, service] of Object.entries(services)) {
    expect(service.healthcheck?.disable, name).to.not.equal(true);
    const run = healthTool(service.healthcheck?.test);
    expect(run, `${name} has a healthcheck`).to.not.equal(null);
    const image = IMAGE_TOOLS[service.image ?? ''];
    expect(image, `${name}: image ${service.image} is in the table of tools`).to.not.equal(undefined);
    expect(image!.tools, `${name}: ${run!.tool} is in ${service.image}`).to.include(run!.tool);
    if (run!.shell)
      expect(image!.shell, `${name}: ${service.image} has a shell for CMD-SHELL`).to.equal(true);
  }
}

function volumesOf(service: Service): Volume[] {
  return (service.volumes ?? []).map((volume) => {
    if (typeof volume !== 'string') return volume;
    const [source, target] = volume.split(':');
    return target === undefined ? { type: 'volume', target: source } : { type: 'volume', source, target };
  });
}

function expectNothingSharedBetweenRoles(services: Record<string, Service>): void {
  const users = new Map<string, string[]>();
  for (const [name, service] of Object.entries(services)) {
    for (const volume of volumesOf(service)) {
      if (volume.source) users.set(volume.source, [...(users.get(volume.source) ?? []), name]);
    }
  }
  for (const [source, names] of users) expect(names, `volume ${source}`).to.have.length(1);
  for (const role of ROLES) {
    const service = services[role]!;
    expect(service.volumes_from ?? [], role).to.deep.equal([]);
    for (const volume of volumesOf(service)) {
      // Anonymous (one per container) or tmpfs: nothing named, nothing bound from the host.
      expect(volume.source, `${role} mounts ${volume.target} from ${volume.source}`).to.equal(undefined);
      expect(['volume', 'tmpfs'], `${role}: ${volume.type}`).to.include(volume.type);
    }
  }
}

function expectOnlyTheBalancerPublishesTheApi(services: Record<string, Service>): void {
  const published = (service: Service): Port[] =>
    (service.ports ?? []).map((port) =>
      typeof port === 'string'
        ? (([target, published, hostIp]) => ({ target, published, host_ip: hostIp }))(
            port.split(':').reverse(),
          )
        : port,
    );
  for (const role of ROLES) expect(services[role]!.ports ?? [], role).to.deep.equal([]);
  expect(
    published(services[BALANCER]!).map((port) => [String(port.published), String(port.target)]),
  ).to.deep.equal([['8000', '8000']]);
  for (const [name, service] of Object.entries(services)) {
    if (name === BALANCER) continue;
    for (const port of published(service)) {
      // Engines may be reached from the host for tests, but only on loopback, and never on 8000.
      expect(port.host_ip, `${name} publishes ${port.published} on`).to.equal('127.0.0.1');
      expect(String(port.published), name).to.not.equal('8000');
    }
  }
}

/** The balancer passes streams and large uploads through (checked on the nginx configuration). */
function expectStreamingBalancer(config: string): void {
  expect(config).to.match(/server\s+api:8000\b/);
  expect(config).to.match(/proxy_buffering\s+off;/);
  const body = /client_max_body_size\s+(\d+)([kmg]?);/i.exec(config);
  expect(body, 'client_max_body_size').to.not.equal(null);
  const size =
    Number(body![1]) * ({ '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[body![2]!.toLowerCase()] ?? 1);
  expect(size === 0 || size >= 50 * 1024 ** 2, `client_max_body_size ${body![0]}`).to.equal(true);
  const read = /proxy_read_timeout\s+(\d+)([smh]?);/.exec(config);
  expect(read, 'proxy_read_timeout').to.not.equal(null);
  const seconds = Number(read![1]) * ({ '': 1, s: 1, m: 60, h: 3600 }[read![2]!] ?? 1);
  expect(seconds, 'proxy_read_timeout (s)').to.be.at.least(600);
}

describe('docker-compose.yml', () => {
  describe('as written (YAML)', () => {
    const yaml = parse(readFileSync(composeFile, 'utf8'), { merge: true }) as Project;
    const services = yaml.services;

    it('runs each role of the topology as a service with its command and replicas', () => {
      for (const [role, { command, replicas }] of Object.entries(topology.roles)) {
        expect(services[role]?.command, role).to.deep.equal([command]);
        expect(services[role]?.deploy?.replicas, role).to.equal(replicas);
      }
      expect(services['api']!.deploy!.replicas).to.be.at.least(2);
    });

    it('has every engine of the topology, PostgreSQL in a profile of its own started for scrubbing', () => {
      for (const engine of [...topology.engines, 'eventstore'])
        expect(services, engine).to.have.property(engine);
      const postgres = services['postgres']!;
      expect(postgres.profiles).to.deep.equal(['postgres']);
      expect(postgres.image).to.equal('postgres:15');
      const command = (postgres.command as string[]).join(' ');
      for (const flag of ['wal_recycle=off', 'wal_keep_size=0', 'max_wal_size=64MB', 'min_wal_size=32MB']) {
        expect(command).to.include(`-c ${flag}`);
      }
      for (const name of Object.keys(services).filter((name) => name !== 'postgres')) {
        expect(services[name]!.profiles ?? [], name).to.deep.equal([]);
      }
    });

    it('checks every service with a tool its image has', () => {
      expectWorkingHealthchecks(services);
    });

    it('shares no volume between roles', () => {
      expectNothingSharedBetweenRoles(services);
    });

    it('publishes the API through the balancer only, which streams and takes large uploads', () => {
      expectOnlyTheBalancerPublishesTheApi(services);
      const [mounted] = services[BALANCER]!.configs ?? [];
      const source = typeof mounted === 'string' ? mounted : mounted!.source;
      expectStreamingBalancer(yaml.configs![source]!.content!);
    });
  });

  describe('as Docker Compose loads it (compose-go, .ci/compose-check)', function () {
    this.timeout(60_000);
    const binary =
      process.env['COMPOSE_CHECK_BIN'] || join(homedir(), '.cache', 'archivist', 'compose-check');
    // The variants the header of docker-compose.yml documents, each with only the environment it names.
    const VARIANTS = {
      default: 'default',
      postgres: 'postgres:postgres:EVENT_STORE=postgres',
      postgresByEnv: 'postgresByEnv::COMPOSE_PROFILES=postgres,EVENT_STORE=postgres',
    };
    type Loaded = { variant: { name: string }; error?: string; project?: Project };
    let loaded: Record<string, Loaded> = {};
    const project = (name: keyof typeof VARIANTS): Project => {
      expect(loaded[name]?.error, name).to.equal(undefined);
      return loaded[name]!.project!;
    };
    const environment = (service: Service): Record<string, string> =>
      Object.fromEntries(
        Object.entries((service.environment ?? {}) as Record<string, string | null>).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        ),
      );

    before(function () {
      if (!existsSync(binary)) {
        console.log(
          `      skipped: compose-check not built (${binary}; bash .ci/provision builds it with Go)`,
        );
        this.skip();
      }
      const run = spawnSync(binary, ['-f', composeFile, ...Object.values(VARIANTS)], {
        cwd: root,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      if (run.error) throw run.error;
      if (!run.stdout.trim())
        throw new Error(`compose-check printed nothing (exit ${run.status}): ${run.stderr}`);
      loaded = Object.fromEntries(
        (JSON.parse(run.stdout) as Loaded[]).map((result) => [result.variant.name, result]),
      );
    });

    it('loads the default and the postgres profile without error', () => {
      for (const name of Object.keys(VARIANTS) as (keyof typeof VARIANTS)[]) {
        expect(loaded[name]?.error, name).to.equal(undefined);
        expect(Object.keys(project(name).services), name).to.include.members([...ROLES, BALANCER]);
      }
    });

    it('matches scripts/cluster-topology.json with --profile postgres', () => {
      const { services } = project('postgres');
      for (const engine of topology.engines) expect(services, engine).to.have.property(engine);
      for (const [role, { command, replicas }] of Object.entries(topology.roles)) {
        const service = services[role]!;
        expect(service.command, role).to.deep.equal([command]);
        expect(service.deploy?.replicas, role).to.equal(replicas);
        const env = environment(service);
        for (const [name, value] of Object.entries(topology.environment)) {
          expect(env[name], `${role} ${name}`).to.equal(value);
        }
        for (const [name, engine] of Object.entries(topology.addresses)) {
          expect(env[name], `${role} ${name}`).to.be.a('string');
          expect(new URL(env[name]!).hostname, `${role} ${name}`).to.equal(engine);
          expect(service.depends_on?.[engine]?.condition, `${role} waits for ${engine}`).to.equal(
            'service_healthy',
          );
        }
      }
      expect(services['api']!.deploy!.replicas).to.be.at.least(2);
    });

    it('switches to PostgreSQL the same way with COMPOSE_PROFILES as with --profile', () => {
      const byFlag = project('postgres');
      const byEnv = project('postgresByEnv');
      expect(Object.keys(byEnv.services).sort()).to.deep.equal(Object.keys(byFlag.services).sort());
      for (const role of ROLES) {
        expect(environment(byEnv.services[role]!), role).to.deep.equal(environment(byFlag.services[role]!));
      }
    });

    it('keeps the event log on EventStoreDB by default, without PostgreSQL', () => {
      const { services } = project('default');
      expect(services).to.not.have.property('postgres');
      for (const role of ROLES) {
        const env = environment(services[role]!);
        expect(env['EVENT_STORE'], role).to.equal('esdb');
        expect(new URL(env['EVENTSTORE_URL']!).hostname, role).to.equal('eventstore');
        expect(env['POSTGRES_URL'] ?? '', role).to.equal('');
        expect(services[role]!.depends_on?.['eventstore']?.condition, role).to.equal('service_healthy');
        // Declared for the profile; Docker Compose skips a dependency on a disabled service only when optional.
        expect(services[role]!.depends_on?.['postgres']?.required ?? false, role).to.equal(false);
      }
    });

    it('gives every role an environment the code accepts, on shared engines, in both variants', () => {
      for (const [variant, eventStore] of [
        ['default', 'esdb'],
        ['postgres', 'postgres'],
      ] as const) {
        const { services } = project(variant);
        for (const role of ROLES) {
          const config = loadConfig(environment(services[role]!));
          expect(config, `${variant} ${role}`).to.include({
            eventStore,
            bus: 'nats',
            blobStore: 'nats',
            readStore: 'mongodb',
            vectorStore: 'milvus',
          });
          expect(isEmbedded(config), `${variant} ${role}`).to.equal(false);
        }
      }
    });

    it('shares no volume between roles and publishes the API through the balancer only', () => {
      for (const variant of ['default', 'postgres'] as const) {
        const { services, configs } = project(variant);
        expectNothingSharedBetweenRoles(services);
        expectOnlyTheBalancerPublishesTheApi(services);
        const source = (services[BALANCER]!.configs![0] as { source: string }).source;
        expectStreamingBalancer(configs![source]!.content!);
        expect(services[BALANCER]!.depends_on?.['api']?.condition).to.equal('service_healthy');
      }
    });

    it('checks every service with a tool its image has', () => {
      for (const variant of ['default', 'postgres'] as const)
        expectWorkingHealthchecks(project(variant).services);
    });
  });
});
