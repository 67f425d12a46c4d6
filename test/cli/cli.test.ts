import { runCli } from '../support/runCli.js';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { createTask } from '../../src/commands/newTask.js';

const run = runCli;

describe('archivist CLI', function () {
  this.timeout(60_000);
  let dataDir: string;
  let taskIds: string[];
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'archivist-cli-'));
    const runtime = await createRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), {
      log: silentLogger,
    });
    await runtime.start(['projector']);
    taskIds = [];
    for (let i = 0; i < 3; i += 1) {
      const { taskId, position } = await createTask(
        runtime.tasks,
        'report',
        { i },
        { actorId: 'cli-test', correlationId: `c${i}` },
      );
      await runtime.projections.waitFor(position);
      taskIds.push(taskId);
    }
    const cancelled = await runtime.tasks.execute(
      'CancelTask',
      { taskId: taskIds[0]!, reason: 'changed my mind' },
      { actorId: 'cli-test', correlationId: 'x' },
    );
    await runtime.projections.waitFor(cancelled.position);
    await runtime.stop();
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints every event as one JSON line, in position order (the audit tool)', () => {
    const { status, stdout } = run(['events'], { DATA_DIR: dataDir });
    expect(status).to.equal(0);
    const events = stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            type: string;
            position: number;
            streamName: string;
            metadata: { actorId: string };
          },
      );
    expect(events.map((e) => e.type)).to.deep.equal([
      'TaskCreated',
      'TaskCreated',
      'TaskCreated',
      'TaskCancelled',
    ]);
    expect(events.map((e) => e.position)).to.deep.equal([1, 2, 3, 4]);
    expect(events[3]!.streamName).to.equal(`task-${taskIds[0]}`);
    expect(events[0]!.metadata.actorId).to.equal('cli-test');
  });

  it('prints from a position, with a limit, and one stream', () => {
    const after2 = run(['events', '--from', '2'], { DATA_DIR: dataDir }).stdout.trim().split('\n');
    expect(after2.map((line) => (JSON.parse(line) as { position: number }).position)).to.deep.equal([3, 4]);
    const limited = run(['events', '--limit', '1'], { DATA_DIR: dataDir }).stdout.trim().split('\n');
    expect(limited).to.have.length(1);
    const stream = run(['events', `task-${taskIds[0]}`], { DATA_DIR: dataDir })
      .stdout.trim()
      .split('\n');
    expect(stream.map((line) => (JSON.parse(line) as { type: string }).type)).to.deep.equal([
      'TaskCreated',
      'TaskCancelled',
    ]);
    expect(run(['events', 'task-none'], { DATA_DIR: dataDir }).stdout).to.equal('');
  });

  it('says its version, with --version, -v or version, and touches no data', () => {
    const { version } = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'),
    ) as {
      version: string;
    };
    const empty = join(dataDir, 'never-created');
    for (const args of [['--version'], ['-v'], ['version']]) {
      const result = run(args, { DATA_DIR: empty });
      expect(result.status, args.join(' ')).to.equal(0);
      expect(result.stdout).to.equal(`archivist ${version}\n`);
    }
    expect(existsSync(empty)).to.equal(false);
  });

  it('reports statistics as JSON', () => {
    const { status, stdout } = run(['stats'], { DATA_DIR: dataDir });
    expect(status).to.equal(0);
    const stats = JSON.parse(stdout) as {
      head_position: number;
      tasks_by_status: Record<string, number>;
      projections: Array<{ name: string; position: number }>;
    };
    expect(stats.head_position).to.equal(4);
    expect(stats.tasks_by_status).to.deep.equal({ pending: 2, cancelled: 1 });
    expect(stats.projections.find((p) => p.name === 'tasks')).to.deep.equal({
      name: 'tasks',
      version: 2,
      generation: 1,
      position: 4,
    });
    expect(stats.projections.map((p) => p.name)).to.have.members([
      'tasks',
      'knowledge',
      'collections',
      'users',
      'conversations',
      'actions',
    ]);
  });

  it('rebuilds a projection beside the active one and switches to it', () => {
    const { status, stdout } = run(['rebuild', 'tasks'], { DATA_DIR: dataDir });
    expect(status).to.equal(0);
    expect(JSON.parse(stdout)).to.include({ projection: 'tasks', rebuilt: true });
    const stats = JSON.parse(run(['stats'], { DATA_DIR: dataDir }).stdout) as {
      tasks_by_status: Record<string, number>;
      projections: Array<{ generation: number }>;
    };
    expect(stats.projections[0]!.generation).to.equal(2);
    expect(stats.tasks_by_status).to.deep.equal({ pending: 2, cancelled: 1 });
  });

  it('refuses unknown projections, unknown commands and bad configuration with exit code 2', () => {
    const unknownProjection = run(['rebuild', 'nope'], { DATA_DIR: dataDir });
    expect(unknownProjection.status).to.equal(2);
    expect(unknownProjection.stderr).to.match(/no projection named nope; known: .*\bvectors\b/);
    const unknownCommand = run(['frobnicate'], { DATA_DIR: dataDir });
    expect(unknownCommand.status).to.equal(2);
    expect(unknownCommand.stderr).to.match(/unknown command: frobnicate/);
    const badConfig = run(['serve'], { DATA_DIR: dataDir, PORT: 'eighty' });
    expect(badConfig.status).to.equal(2);
    expect(badConfig.stderr).to.include('PORT must be an integer from 0 to 65535, got "eighty"');
    const portInAllowList = run(['serve'], {
      DATA_DIR: dataDir,
      SCRAPE_ALLOWED_HOSTS: '10.0.0.0/8,intranet:8080',
    });
    expect(portInAllowList.status).to.equal(2);
    expect(portInAllowList.stderr).to.include(
      'SCRAPE_ALLOWED_HOSTS has "intranet:8080": a port is not part of a host: leave it out',
    );
    expect(run(['events', '--from', '-3'], { DATA_DIR: dataDir }).status).to.equal(2);
    expect(run(['events', '--from', 'x'], { DATA_DIR: dataDir }).status).to.equal(2);
  });

  it('refuses to run a single role when everything is embedded, and bad --roles', () => {
    const worker = run(['worker'], { DATA_DIR: dataDir });
    expect(worker.status).to.equal(2);
    expect(worker.stderr).to.include("'archivist worker' runs one role against shared engines");
    const badRoles = run(['serve', '--roles', 'api,chef'], { DATA_DIR: dataDir });
    expect(badRoles.status).to.equal(2);
    expect(badRoles.stderr).to.include('--roles takes a comma-separated list of api, worker, projector');
  });

  it('refuses to inspect a data folder that holds no Archivist data, creating nothing there', () => {
    const mistyped = join(dataDir, 'no-such-folder');
    for (const command of ['stats', 'events', 'rebuild']) {
      const result = run([command], { DATA_DIR: mistyped });
      expect(result.status, command).to.equal(2);
      expect(result.stderr, command).to.include(`no Archivist data in ${mistyped}`);
    }
    expect(existsSync(mistyped)).to.equal(false);
  });

  it('says in one line that the port is taken, and leaves the data folder unlocked', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    const folder = mkdtempSync(join(tmpdir(), 'archivist-busy-'));
    try {
      const result = run(['serve'], { DATA_DIR: folder, PORT: String(port) });
      expect(result.status).to.equal(2);
      expect(result.stderr.trim().split('\n')).to.deep.equal([
        `archivist: port ${port} on 127.0.0.1 is already in use (set PORT to another)`,
      ]);
      expect(existsSync(join(folder, 'archivist.lock'))).to.equal(false);
    } finally {
      blocker.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('prints usage with --help', () => {
    const { status, stdout } = run(['--help'], {});
    expect(status).to.equal(0);
    expect(stdout)
      .to.include('rebuild [projection]')
      .and.include('events [stream]')
      .and.include('worker')
      .and.include('project');
  });
});
