/**
 * Projection rebuild rate into the embedded read store: the tasks projection replaying a realistic
 * task history (created, started, three progress reports, completed: 6 events per task).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteEventStore } from '../src/eventStore/sqliteEventStore.js';
import { silentLogger } from '../src/log.js';
import { createProjectionStack } from '../src/projections/stack.js';
import { tasksProjection } from '../src/projections/tasksProjection.js';
import { createSqliteReadStore } from '../src/readStore/sqliteReadStore.js';
import { machine, median, report } from './support.js';

const TASKS = 50_000;
const dir = mkdtempSync(join(tmpdir(), 'bench-proj-'));
const eventStore = createSqliteEventStore({ path: join(dir, 'events.db') });
const readStore = createSqliteReadStore({ path: join(dir, 'read.db') });
const { registry, readModels, engine } = createProjectionStack({
  eventStore,
  readStore,
  projections: [tasksProjection],
  owner: 'bench',
  log: silentLogger,
});

console.log(`machine: ${machine()}`);
const metadata = (n: number) => ({
  now: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
  actorId: 'bench',
  correlationId: 'bench',
});
await Promise.all(
  Array.from({ length: 32 }, async (_, writer) => {
    for (let i = writer; i < TASKS; i += 32) {
      const taskId = randomUUID();
      await eventStore.append(`task-${taskId}`, [
        {
          type: 'TaskCreated',
          data: { taskId, jobType: 'ingest', input: { file: `doc-${i}.pdf` } },
          metadata: metadata(i),
        },
        { type: 'TaskStarted', data: { taskId, attempt: 1, workerId: 'w' }, metadata: metadata(i + 1) },
        ...[0.25, 0.5, 0.75].map((progress) => ({
          type: 'TaskProgressed',
          data: { taskId, progress, message: `at ${progress}` },
          metadata: metadata(i + 2),
        })),
        { type: 'TaskCompleted', data: { taskId, result: { chunks: i % 40 } }, metadata: metadata(i + 3) },
      ]);
    }
  }),
);
const events = await eventStore.headPosition();
await registry.init();
const rates: number[] = [];
for (let run = 0; run < 3; run += 1) {
  const started = performance.now();
  await engine.rebuild('tasks');
  rates.push(events / ((performance.now() - started) / 1000));
}
report(
  `tasks projection rebuild, ${events.toLocaleString('en')} events (median of 3)`,
  median(rates),
  'events/s',
  '>= 50,000',
);
console.log(`read model holds ${await readModels.count('tasks')} tasks`);
await engine.stop();
await eventStore.close();
await readStore.close();
rmSync(dir, { recursive: true, force: true });
