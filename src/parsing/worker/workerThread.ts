import { Worker } from 'node:worker_threads';

const runningFromSources = import.meta.url.endsWith('.ts');

/** The parse worker's entry point: its JavaScript file in a build, its TypeScript source under tsx. */
export const PARSE_WORKER_URL = new URL(
  runningFromSources ? './parseWorker.ts' : './parseWorker.js',
  import.meta.url,
);

/**
 * Starts a worker thread on `url`. A worker cannot load a .ts entry by itself, so from TypeScript
 * sources (tests, tsx) a bootstrap registers tsx's loader first.
 */
export function startWorker(url: URL, options: ConstructorParameters<typeof Worker>[1]): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}
