/**
 * The read side on distributed engines (NATS + FerretDB here; MONGODB_URL/NATS_URL for others):
 * - projection catch-up: the tasks projection building from 60,000 task events into the MongoDB-wire
 *   read store (events/s);
 * - end-to-end latency from an append in one process to the change being visible in the read store
 *   written by a projector in another process (p50, p99), with append announcements over NATS.
 * Work-queue throughput, embedded and on NATS, is in `npm run bench -- bus`.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNatsBus } from '../src/bus/natsBus.js';
import { announceAppends } from '../src/eventStore/appendNotifications.js';
import { createSqliteEventStore } from '../src/eventStore/sqliteEventStore.js';
import { silentLogger } from '../src/log.js';
import { createProjectionStack } from '../src/projections/stack.js';
import { tasksProjection, type TaskView } from '../src/projections/tasksProjection.js';
import { createMongoReadStore } from '../src/readStore/mongoReadStore.js';
import { createSqliteReadStore } from '../src/readStore/sqliteReadStore.js';
import { startMongo } from '../test/support/ferretDb.js';
import { startNatsServer } from '../test/support/natsServer.js';
import { machine, median, percentile, report, taskLifecycle } from './support.js';

const TASKS = Number(process.env['BENCH_TASKS'] ?? 10_000);

console.log(`machine: ${machine()}`);
const [nats, mongo] = await Promise.all([startNatsServer(), startMongo()]);
if (!nats || !mongo) {
  console.log('skipped: needs nats-server and a MongoDB-wire server (FerretDB)');
  process.exit(0);
}
console.log(`read store: ${mongo.kind}, bus: NATS ${nats.url}`);
const dataDir = mkdtempSync(join(tmpdir(), 'bench-distributed-'));
const database = `bench_${process.pid}`;

// 1. Catch-up rate.
const eventStore = createSqliteEventStore({ path: join(dataDir, 'events.db') });
await Promise.all(
  Array.from({ length: 16 }, async (_, writer) => {
    for (let i = writer; i < TASKS; i += 16) {
      const taskId = randomUUID();
      await eventStore.append(`task-${taskId}`, taskLifecycle(taskId));
    }
  }),
);
const head = await eventStore.headPosition();
const readStore = createMongoReadStore({ url: mongo.url, database });
const stack = createProjectionStack({
  eventStore,
  readStore,
  projections: [tasksProjection],
  owner: 'bench',
  log: silentLogger,
});
await stack.registry.init();
const rates: number[] = [];
for (let run = 0; run < 3; run += 1) {
  const started = performance.now();
  await stack.engine.rebuild('tasks');
  rates.push(head / ((performance.now() - started) / 1000));
}
report(
  `projection catch-up into ${mongo.kind}, ${head.toLocaleString('en')} events (median of 3)`,
  median(rates),
  'events/s',
);

/** Appends one TaskCreated at a time and waits until `visible` sees the task (ms per task). */
async function appendToVisible(
  append: (stream: string, events: ReturnType<typeof taskLifecycle>) => Promise<unknown>,
  visible: (taskId: string) => Promise<boolean>,
  warmUp: number,
): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < 200 + warmUp; i += 1) {
    const taskId = randomUUID();
    const started = performance.now();
    await append(`task-${taskId}`, taskLifecycle(taskId).slice(0, 1));
    while (!(await visible(taskId))) await new Promise((resolve) => setImmediate(resolve));
    if (i >= warmUp) latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return latencies;
}

// 2. Baseline: the embedded read side in this process (SQLite read store, same event file).
{
  const embedded = createSqliteReadStore({ path: join(dataDir, 'read.db') });
  const local = createProjectionStack({
    eventStore,
    readStore: embedded,
    projections: [tasksProjection],
    owner: 'bench',
    log: silentLogger,
  });
  await local.registry.init();
  const embeddedRates: number[] = [];
  for (let run = 0; run < 3; run += 1) {
    const started = performance.now();
    await local.engine.rebuild('tasks');
    embeddedRates.push(head / ((performance.now() - started) / 1000));
  }
  report(
    `baseline: projection catch-up into the embedded read store, same events (median of 3)`,
    median(embeddedRates),
    'events/s',
  );
  await local.engine.start();
  const latencies = await appendToVisible(
    (stream, events) => eventStore.append(stream, events),
    async (taskId) => (await local.readModels.get<TaskView>('tasks', taskId)) !== null,
    20,
  );
  report(
    'append → visible, embedded (SQLite read store, same process): p50',
    percentile(latencies, 50),
    'ms',
  );
  report(
    'append → visible, embedded (SQLite read store, same process): p99',
    percentile(latencies, 99),
    'ms',
  );
  await local.engine.stop();
  await embedded.close();
}

// 3. Append → visible, across processes: a projector child process follows the same event file.
const projector = spawn(
  process.execPath,
  ['--import', 'tsx', join(import.meta.dirname, '..', 'src', 'cli', 'main.ts'), 'project'],
  {
    env: {
      ...process.env,
      EVENT_STORE: 'file',
      DATA_DIR: dataDir,
      BUS: 'nats',
      NATS_URL: nats.url,
      READ_STORE: 'mongodb',
      MONGODB_URL: mongo.url,
      MONGODB_DATABASE: database,
      LOG_LEVEL: 'error',
    },
    stdio: process.env['BENCH_DEBUG'] ? 'inherit' : 'ignore',
  },
);
const bus = createNatsBus({ url: nats.url });
const announcing = announceAppends(eventStore, bus);
// The first appends wait for the projector process to start.
const latencies = await appendToVisible(
  (stream, events) => announcing.append(stream, events),
  async (taskId) => (await stack.readModels.get<TaskView>('tasks', taskId)) !== null,
  20,
);
report(
  `append → visible, ${mongo.kind} read store, projector in another process: p50`,
  percentile(latencies, 50),
  'ms',
);
report(
  `append → visible, ${mongo.kind} read store, projector in another process: p99`,
  percentile(latencies, 99),
  'ms',
);

projector.kill('SIGTERM');
await new Promise((resolve) => projector.once('exit', resolve));
await stack.engine.stop();
await bus.close();
await eventStore.close();
await readStore.close();
await Promise.all([nats.dispose(), mongo.dispose()]);
rmSync(dataDir, { recursive: true, force: true });
