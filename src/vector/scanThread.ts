import type { Worker } from 'node:worker_threads';
import { startWorker } from '../parsing/worker/workerThread.js';
import type { ScanReply, ScanRequest } from './scanProtocol.js';

const runningFromSources = import.meta.url.endsWith('.ts');
const SCAN_WORKER_URL = new URL(runningFromSources ? './scanWorker.ts' : './scanWorker.js', import.meta.url);

/** What a slab sends its copy in the scan thread: the whole of it, or the slots changed since. */
export type SlabChanges =
  { size: number; whole: Int8Array } | { size: number; slots: Int32Array; rows: Int8Array };

/** One slab's copy in the scan thread. */
export interface ScanMirror {
  /** Scans the copy as of `changes` (applied first when given): candidate slots, best first. */
  scan(changes: SlabChanges | null, query: Int8Array, wanted: number): Promise<Int32Array>;
  /** The copy is dropped; the thread stops when no mirror is left (resolves once it has). */
  detach(): Promise<void>;
}

/**
 * A worker thread that scans int8 copies of the embedded collections, so that a search's vector
 * half runs on another core while the API thread scores its lexical half and serves requests. One
 * per process, started on the first mirror and stopped after the last. If it fails, every pending
 * and later scan rejects, and the slab scans on the calling thread instead (`onFailure` is told once).
 */
export class ScanThread {
  private worker: Worker | null = null;
  private failure: Error | null = null;
  private readonly pending = new Map<
    number,
    { resolve(slots: Int32Array): void; reject(error: Error): void }
  >();
  private nextRequest = 0;
  private nextSlab = 0;
  private attached = 0;

  /** `workerUrl`: another thread's entry point, for tests of a thread that fails. */
  constructor(
    private readonly onFailure: (error: Error) => void,
    private readonly workerUrl: URL = SCAN_WORKER_URL,
  ) {}

  get failed(): boolean {
    return this.failure !== null;
  }

  /** Whether its worker thread is up (started by a scan, stopped with the last mirror). */
  get running(): boolean {
    return this.worker !== null;
  }

  attach(dimensions: number): ScanMirror {
    const slab = (this.nextSlab += 1);
    this.attached += 1;
    let detached = false;
    return {
      scan: (changes, query, wanted) => {
        if (detached) return Promise.reject(new Error('scan mirror detached'));
        const worker = this.started();
        if (!worker) return Promise.reject(this.failure ?? new Error('scan thread stopped'));
        if (changes) this.send(worker, { type: 'sync', slab, dimensions, ...changes });
        const id = (this.nextRequest += 1);
        const reply = new Promise<Int32Array>((resolve, reject) => this.pending.set(id, { resolve, reject }));
        this.send(worker, { type: 'scan', slab, id, query, wanted });
        // Referenced while a scan is awaited: an unreferenced thread would let the process exit under it.
        worker.ref();
        return reply;
      },
      detach: async () => {
        if (detached) return;
        detached = true;
        this.attached -= 1;
        if (!this.worker) return;
        if (this.attached > 0) this.send(this.worker, { type: 'forget', slab });
        else await this.stop();
      },
    };
  }

  private send(worker: Worker, request: ScanRequest): void {
    const buffers = [request.type === 'sync' ? (request.whole ?? request.rows)?.buffer : undefined];
    worker.postMessage(
      request,
      buffers.filter((buffer): buffer is ArrayBuffer => buffer instanceof ArrayBuffer),
    );
  }

  private started(): Worker | null {
    if (this.failure) return null;
    if (this.worker) return this.worker;
    const worker = startWorker(this.workerUrl, {});
    worker.unref();
    worker.on('message', (reply: ScanReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (!waiting) return;
      if ('slots' in reply) waiting.resolve(reply.slots);
      else waiting.reject(new Error(reply.error));
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.fail(new Error(`scan thread stopped (exit code ${code})`));
      else this.rejectPending(new Error('scan thread stopped'));
    });
    this.worker = worker;
    return worker;
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.worker = null;
    this.rejectPending(error);
    this.onFailure(error);
  }

  private rejectPending(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }

  /**
   * Asks the thread to end after the requests sent before, and resolves when it has: terminating it
   * inside a native scan aborts the whole process (usearch raises a C++ error on the dying thread).
   */
  private async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    this.send(worker, { type: 'stop' });
    worker.ref();
    await ended;
  }
}
