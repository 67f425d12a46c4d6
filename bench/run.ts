/**
 * `npm run bench` runs every benchmark; `npm run bench -- <name> [<name>…]` runs the named ones
 * (`bench/<name>.bench.ts`, e.g. `eventStore`, `parsing/pdf`). Each benchmark is a standalone script
 * that prints its figures; they run one after another in child processes so one cannot warm or
 * starve another.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = fileURLToPath(new URL('.', import.meta.url));

function findBenchmarks(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return findBenchmarks(path);
    return entry.endsWith('.bench.ts') ? [relative(benchDir, path).replace(/\.bench\.ts$/, '')] : [];
  });
}

const available = findBenchmarks(benchDir).sort();
const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}\navailable: ${available.join(', ')}`);
  process.exit(2);
}

let failed = 0;
for (const name of requested.length > 0 ? requested : available) {
  console.log(`\n=== ${name} ===`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(benchDir, `${name}.bench.ts`)], {
    stdio: 'inherit',
  });
  if (run.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
