/**
 * Start-up with 1,000,000 events in the log: from spawning the compiled server (what `npm start`
 * runs) to `/api/v1/health/ready` answering with the event store, read store, bus and projections
 * healthy (projections caught up to the head). Start-up reads checkpoints; it replays nothing.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteEventStore } from '../src/eventStore/sqliteEventStore.js';
import { build, machine, median, report, taskLifecycle } from './support.js';

const TOTAL = 1_000_000;
const TASKS = 10_000;
const PORT = 18_700 + Math.floor(Math.random() * 200);
const dataDir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
const cli = join(import.meta.dirname, '..', 'dist', 'src', 'cli', 'main.js');

console.log(`machine: ${machine()}`);
build();
const store = createSqliteEventStore({ path: join(dataDir, 'events.db') });
const metadata = { now: new Date().toISOString(), actorId: 'bench', correlationId: 'bench' };
for (let i = 0; i < TASKS; i += 1) {
  const taskId = randomUUID();
  await store.append(`task-${taskId}`, taskLifecycle(taskId));
}
const notes = Array.from({ length: 1_000 }, (_, n) => ({
  type: 'NoteRecorded',
  data: { n, text: 'an event no projection of this build handles' },
  metadata,
}));
while ((await store.headPosition()) < TOTAL)
  await store.append(
    `note-${randomUUID()}`,
    notes.slice(0, Math.min(1_000, TOTAL - (await store.headPosition()))),
  );
const head = await store.headPosition();
await store.close();
console.log(`event log: ${head.toLocaleString('en')} events`);

async function readiness(): Promise<{ projections: boolean } | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${PORT}/api/v1/health/ready`);
    const body = (await response.json()) as { components: Array<{ name: string; healthy: boolean }> };
    const core = body.components.filter((c) =>
      ['event_store', 'read_store', 'bus', 'projections'].includes(c.name),
    );
    return { projections: core.every((c) => c.healthy) };
  } catch {
    return null;
  }
}

async function startOnce(): Promise<{ ms: number; stop: () => Promise<void> }> {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(PORT), LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  for (;;) {
    const state = await readiness();
    if (state?.projections) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const ms = performance.now() - started;
  return {
    ms,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const first = await startOnce();
report('first start: projections build from 1,000,000 events', first.ms, 'ms');
await new Promise((resolve) => setTimeout(resolve, 5_000)); // let the worker settle the replayed jobs
await first.stop();

const times: number[] = [];
for (let run = 0; run < 5; run += 1) {
  const { ms, stop } = await startOnce();
  times.push(ms);
  await stop();
}
report('start-up to ready with 1,000,000 events (median of 5)', median(times), 'ms', '<= 1,000 ms');
console.log(`runs: ${times.map((t) => Math.round(t)).join(', ')} ms`);
rmSync(dataDir, { recursive: true, force: true });
