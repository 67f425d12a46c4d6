import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { childEnv } from './childEnv.js';

const cli = join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');
// Resolved here: the child may run in another folder (`cwd`), where `tsx` alone would not resolve.
const tsx = import.meta.resolve('tsx');

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `archivist ARGS` from the source in a child process without blocking this one: a server
 * this test process runs keeps answering meanwhile (runCli's spawnSync would stall it). `env`
 * values that are undefined are removed from the child's environment.
 */
export function runCliAsync(
  args: readonly string[],
  env: Record<string, string | undefined>,
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', tsx, cli, ...args], {
      env: childEnv({ LOG_LEVEL: 'silent', ...env }),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
