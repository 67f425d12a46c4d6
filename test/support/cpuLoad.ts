import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Busy processes that keep the machine's cores loaded while a test runs: the load a test asserts
 * it survives is made by the test, not hoped for from CI. `stop` ends them.
 */
export function startCpuLoad(processes = 2): { stop(): void } {
  const children: ChildProcess[] = Array.from({ length: processes }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  return {
    stop(): void {
      for (const child of children) child.kill('SIGKILL');
    },
  };
}
