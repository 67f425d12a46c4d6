import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { childEnv } from './childEnv.js';

const cli = join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');

/** Runs `archivist ARGS` from the source in a child process; `input` is its standard input. */
export function runCli(args: string[], env: Record<string, string>, input?: string) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], {
    env: childEnv({ LOG_LEVEL: 'silent', ...env }),
    encoding: 'utf8',
    timeout: 30_000,
    ...(input === undefined ? {} : { input }),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
