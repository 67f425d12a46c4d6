import { Worker } from 'node:worker_threads';

/**
 * The entry point of a worker module beside `importMetaUrl` (the caller's `import.meta.url`): its
 * JavaScript file in a build, its TypeScript source when the caller itself runs from sources (tests,
 * tsx). `name` has no extension.
 */
export function workerEntry(name: string, importMetaUrl: string): URL {
  const extension = importMetaUrl.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${name}${extension}`, importMetaUrl);
}

/**
 * Starts a worker thread on `url`. A worker cannot load a .ts entry by itself, so from TypeScript
 * sources (tests, tsx) a bootstrap registers tsx's loader first.
 */
export function startWorker(url: URL, options: ConstructorParameters<typeof Worker>[1]): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}
