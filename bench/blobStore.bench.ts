/**
 * The file blob store: what one upload's blob costs (put, get, delete), in CPU (all threads of this
 * process, user + system) and wall time per cycle, beside two references run in the same rounds:
 *
 * - `thread pool, no flush`: `fs/promises` writeFile + rename + readFile + unlink, what the adapter
 *   did before it flushed its writes (each call a round trip through libuv's thread pool);
 * - `direct, no flush`: the same four calls made synchronously: the floor for these syscalls.
 *
 * The adapter flushes a blob's data and its folder before `put` resolves (a blob survives a power
 * loss); every call of it goes through the thread pool. Sizes: 8 KB (a README) and 1 MB. Contenders
 * alternate for RUNS rounds after a warm-up; medians.
 *
 *   npm run bench -- blobStore            (RUNS=9 for more rounds)
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileBlobStore } from '../src/blobStore/fileBlobStore.js';
import { machine, median } from './support.js';

const RUNS = Number(process.env['RUNS'] ?? 5);
const root = mkdtempSync(join(tmpdir(), 'archivist-blob-bench-'));

type Cycle = (bytes: Uint8Array) => Promise<void>;

const store = createFileBlobStore(join(root, 'store'));
const poolDir = join(root, 'pool');
const directDir = join(root, 'direct');
for (const dir of [poolDir, directDir]) mkdirSync(dir);

const contenders: Array<[string, Cycle]> = [
  [
    'file blob store',
    async (bytes) => {
      const name = await store.put(bytes);
      await store.get(name);
      await store.delete(name);
    },
  ],
  [
    'thread pool, no flush',
    async (bytes) => {
      const name = join(poolDir, randomUUID());
      await writeFile(`${name}.partial`, bytes);
      await rename(`${name}.partial`, name);
      await readFile(name);
      await unlink(name);
    },
  ],
  [
    'direct, no flush',
    async (bytes) => {
      const name = join(directDir, randomUUID());
      writeFileSync(`${name}.partial`, bytes);
      renameSync(`${name}.partial`, name);
      readFileSync(name);
      unlinkSync(name);
    },
  ],
];

async function measure(
  cycle: Cycle,
  bytes: Uint8Array,
  cycles: number,
): Promise<{ cpu: number; wall: number }> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < cycles; i += 1) await cycle(bytes);
  const wall = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { cpu: (cpu.user + cpu.system) / cycles, wall: (wall * 1000) / cycles };
}

console.log(`machine: ${machine()}, load ${loadavg()[0]!.toFixed(2)}`);
try {
  for (const [size, cycles] of [
    [8 * 1024, 2_000],
    [1024 * 1024, 100],
  ] as const) {
    const bytes = new Uint8Array(size).fill(65);
    for (const [, cycle] of contenders) await measure(cycle, bytes, Math.ceil(cycles / 5));
    const results = new Map<string, Array<{ cpu: number; wall: number }>>();
    for (let run = 0; run < RUNS; run += 1) {
      const order = run % 2 === 0 ? contenders : [...contenders].reverse();
      for (const [label, cycle] of order) {
        const list = results.get(label) ?? [];
        list.push(await measure(cycle, bytes, cycles));
        results.set(label, list);
      }
    }
    console.log(`\n${size / 1024} KB blobs, put + get + delete, median of ${RUNS} rounds of ${cycles}:`);
    for (const [label] of contenders) {
      const runs = results.get(label)!;
      const cpu = median(runs.map((r) => r.cpu));
      const wall = median(runs.map((r) => r.wall));
      console.log(
        `  ${label.padEnd(24)} CPU ${cpu.toFixed(0).padStart(6)} µs   wall ${wall.toFixed(0).padStart(6)} µs`,
      );
    }
  }
} finally {
  await store.close();
  rmSync(root, { recursive: true, force: true });
}
