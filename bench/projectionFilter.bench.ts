/**
 * Filtered reads that still advance: a projection handling 1 % of a 1,000,000-event log against
 * one that reads every event (it handles both types; the 99 % are no-ops for it), each built from
 * position 0 on the same SQLite log. Target: the 1 % projection catches up ≥ 10× faster.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteEventStore } from '../src/eventStore/sqliteEventStore.js';
import { silentLogger } from '../src/log.js';
import type { Projection } from '../src/projections/projection.js';
import { createProjectionStack } from '../src/projections/stack.js';
import { createSqliteReadStore } from '../src/readStore/sqliteReadStore.js';
import { machine, median, report } from './support.js';

const TOTAL = Number(process.env['BENCH_EVENTS'] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'bench-filter-'));
const eventStore = createSqliteEventStore({ path: join(dir, 'events.db') });
const metadata = { now: new Date().toISOString(), actorId: 'bench', correlationId: 'bench' };

console.log(`machine: ${machine()}`);
// 1 % Rare, 99 % Noise, in batches of 1,000 events per append.
for (let written = 0; written < TOTAL; written += 1_000) {
  const stream = `s-${randomUUID()}`;
  await eventStore.append(
    stream,
    Array.from({ length: Math.min(1_000, TOTAL - written) }, (_, i) => ({
      type: (written + i) % 100 === 0 ? 'Rare' : 'Noise',
      data: { n: written + i },
      metadata,
    })),
  );
}
const head = await eventStore.headPosition();
console.log(
  `event log: ${head.toLocaleString('en')} events, ${(head / 100).toLocaleString('en')} of them Rare`,
);

/** Counts Rare events per 1,000-event stream; `everything` also receives (and ignores) the Noise. */
function counting(name: string, everything: boolean): Projection {
  return {
    name,
    version: 1,
    handles: everything ? ['Rare', 'Noise'] : ['Rare'],
    collections: [{ name: `${name}_counts` }],
    async apply(event, view) {
      if (event.type !== 'Rare') return;
      const doc = await view.get<{ id: string; rare: number }>(`${name}_counts`, event.streamName);
      view.put(`${name}_counts`, { id: event.streamName, rare: (doc?.rare ?? 0) + 1 });
    },
  };
}

async function catchUp(everything: boolean): Promise<number> {
  const readStore = createSqliteReadStore({ path: join(dir, `read-${randomUUID()}.db`) });
  const name = everything ? 'everything' : 'rare';
  const { registry, engine } = createProjectionStack({
    eventStore,
    readStore,
    projections: [counting(name, everything)],
    owner: 'bench',
    log: silentLogger,
  });
  await registry.init();
  const started = performance.now();
  await engine.rebuild(name);
  const ms = performance.now() - started;
  await engine.stop();
  await readStore.close();
  return ms;
}

const rare: number[] = [];
const all: number[] = [];
for (let run = 0; run < 3; run += 1) {
  rare.push(await catchUp(false));
  all.push(await catchUp(true));
}
report('catch-up, projection handling 1 % of events (median of 3)', median(rare), 'ms');
report('catch-up, projection reading every event (median of 3)', median(all), 'ms');
report('speed-up of the filtered read', median(all) / median(rare), '×', '>= 10×');
await eventStore.close();
rmSync(dir, { recursive: true, force: true });
