// `npm start`'s pre-step: builds only when a source is newer than the build. `npm ci` builds
// (prepare), so a fresh install starts at once; an edited checkout rebuilds first, as before.
// Plain JavaScript, not TypeScript: it runs before anything is compiled, and must cost milliseconds.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const root = join(import.meta.dirname, '..');
const at = (...parts) => join(root, ...parts);

/** The newest modification time under `path` (a file or a folder), 0 when it does not exist. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = stats.mtimeMs; // a deleted file changes its folder's time
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    latest = Math.max(latest, newest(join(path, entry.name)));
  }
  return latest;
}

// Each build step: what it reads, and what it writes every time it runs (tsc's incremental state; the
// console's page). Compiled modules are no marker: tsc rewrites only what changed.
const steps = [
  {
    inputs: ['src', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'],
    output: at('dist', '.tsbuildinfo'),
  },
  ...(existsSync(at('console'))
    ? [
        {
          inputs: ['console', 'package.json', 'package-lock.json'],
          output: at('dist', 'console', 'index.html'),
        },
      ]
    : []),
];
const builtAt = (output) => (existsSync(output) ? statSync(output).mtimeMs : 0);
const missing = steps.some((step) => builtAt(step.output) === 0);
const stale = steps.some(
  (step) => Math.max(...step.inputs.map((input) => newest(at(input)))) > builtAt(step.output),
);
if (missing || stale) {
  process.stderr.write(
    missing
      ? 'archivist: building (no build yet)\n'
      : 'archivist: sources changed since the last build; rebuilding\n',
  );
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  // tsc leaves its state untouched when nothing it compiles changed (the console did, or a source
  // was only touched): marked built now, so that the next start does not build again.
  const now = new Date();
  for (const { output } of steps) if (existsSync(output)) utimesSync(output, now, now);
}
