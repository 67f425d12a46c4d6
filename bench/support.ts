import { execSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';

export function machine(): string {
  const cpu = cpus();
  return `${cpu[0]?.model ?? 'cpu'} × ${cpu.length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function report(name: string, value: number, unit: string, target?: string): void {
  const shown = value >= 100 ? Math.round(value).toLocaleString('en') : value.toFixed(3);
  console.log(`${name.padEnd(58)} ${shown.padStart(12)} ${unit}${target ? `   (target ${target})` : ''}`);
}

/** Compiles the product so benchmarks run what `npm start` runs. */
export function build(): void {
  try {
    execSync('npx tsc -p tsconfig.build.json', { stdio: 'inherit' });
  } catch {
    console.warn(
      'warning: the build reported type errors (output was still emitted); figures may not be final',
    );
  }
}

const benchMetadata = { now: new Date().toISOString(), actorId: 'bench', correlationId: 'bench' };

/** The six events of one task's whole life (created, started, three progress reports, completed). */
export function taskLifecycle(taskId: string) {
  return [
    { type: 'TaskCreated', data: { taskId, jobType: 'ingest', input: {} }, metadata: benchMetadata },
    { type: 'TaskStarted', data: { taskId, attempt: 1, workerId: 'w' }, metadata: benchMetadata },
    ...[0.25, 0.5, 0.75].map((progress) => ({
      type: 'TaskProgressed',
      data: { taskId, progress, message: null },
      metadata: benchMetadata,
    })),
    { type: 'TaskCompleted', data: { taskId, result: {} }, metadata: benchMetadata },
  ];
}
