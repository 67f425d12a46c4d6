import { workerEntry } from '../../workerThreads.js';

/** The parse worker's entry point: its JavaScript file in a build, its TypeScript source under tsx. */
export const PARSE_WORKER_URL = workerEntry('parseWorker', import.meta.url);
