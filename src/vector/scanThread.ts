import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker, workerEntry } from '../workerThreads.js';
import type { ScanReply, ScanRequest } from './scanProtocol.js';

const SCAN_WORKER_URL = workerEntry('scanWorker', import.meta.url);

/**
 * What a slab sends its copy in the scan threads: all of it (`whole` gives the int8 copies of slots
 * `from` to `to`, made block by block so that no second copy of the slab is ever held), or the slots
 * changed since with their rows.
 */
export type SlabChanges =
  | { size: number; whole: (from: number, to: number) => Int8Array }
  | { size: number; slots: Int32Array; rows: Int8Array };

/** One slab's copy in the scan threads. */
export interface ScanMirror {
  /** Scans the copy as of `changes` (applied first when given): candidate slots, best first. */
  scan(changes: SlabChanges | null, query: Int8Array, wanted: number): Promise<Int32Array>;
  /** The copy is dropped; the threads stop when no mirror is left (resolves once they have). */
  detach(): Promise<void>;
}

export interface ScanThreadOptions {
  /** Threads the blocks of a collection are spread over: one per core, at most 4, by default. */
  threads?: number;
  /**
   * Slots per block (131,072 by default): block b is held and scanned by thread b mod threads, so a
   * collection above one block is scanned by several threads at once (a scan of 1M int8 vectors
   * reads 384 MB: two threads on two cores took it from 15–18 to 10–12 ms). Up to one block, one
   * thread: a scan of 100k takes ~1.5 ms, and each further thread costs ~10–20 MB of memory.
   */
  blockSlots?: number;
  /** Another thread's entry point, for tests of a thread that fails. */
  workerUrl?: URL;
}

type Waiting = { worker: Worker; resolve(slots: Int32Array): void; reject(error: Error): void };

/**
 * Worker threads that scan int8 copies of the embedded collections, so that a search's vector half
 * runs on other cores while the API thread scores its lexical half and serves requests. Each
 * collection is cut into blocks spread over the threads (see scanProtocol.ts); a thread starts when
 * a collection first has a block for it. One set per process, stopped after the last mirror. If a
 * thread fails, every pending and later scan rejects, and the slab scans on the calling thread
 * instead (`onFailure` is told once).
 */
export class ScanThread {
  private workers: Worker[] = [];
  private failure: Error | null = null;
  private readonly pending = new Map<number, Waiting>();
  private nextRequest = 0;
  private nextSlab = 0;
  private attached = 0;
  private readonly threads: number;
  private readonly blockSlots: number;
  private readonly workerUrl: URL;

  constructor(
    private readonly onFailure: (error: Error) => void,
    options: ScanThreadOptions = {},
  ) {
    this.threads = Math.max(1, options.threads ?? Math.min(4, availableParallelism()));
    this.blockSlots = options.blockSlots ?? 131_072;
    this.workerUrl = options.workerUrl ?? SCAN_WORKER_URL;
  }

  get failed(): boolean {
    return this.failure !== null;
  }

  /** How many worker threads are up (started by scans, stopped with the last mirror). */
  get running(): number {
    return this.workers.length;
  }

  attach(dimensions: number): ScanMirror {
    const slab = (this.nextSlab += 1);
    this.attached += 1;
    const { blockSlots, threads } = this;
    /** Threads holding blocks of the slab: the first `min(threads, blocks)`. */
    const holdersOf = (size: number): number => Math.max(1, Math.min(threads, Math.ceil(size / blockSlots)));
    const ownerOf = (slot: number): number => Math.floor(slot / blockSlots) % threads;
    let detached = false;
    let holders = 0;
    let size = 0;
    const sync = (worker: number, part: Partial<Extract<ScanRequest, { type: 'sync' }>>): void => {
      const buffers = [...(part.blocks ?? []).map(({ bytes }) => bytes.buffer), part.rows?.buffer];
      this.worker(worker).postMessage(
        { type: 'sync', slab, dimensions, blockSlots, size, ...part } satisfies ScanRequest,
        buffers.filter((buffer): buffer is ArrayBuffer => buffer instanceof ArrayBuffer),
      );
    };
    return {
      scan: async (changes, query, wanted) => {
        if (detached) throw new Error('scan mirror detached');
        if (this.failure) throw this.failure;
        if (changes) {
          size = changes.size;
          // Every thread that held or now holds blocks learns the new size.
          const reach = Math.max(holders, holdersOf(size));
          for (let worker = 0; worker < reach; worker += 1) {
            if ('whole' in changes) {
              const blocks: Array<{ block: number; bytes: Int8Array }> = [];
              for (let block = worker; block * blockSlots < size; block += threads) {
                const end = Math.min(size, (block + 1) * blockSlots);
                blocks.push({ block, bytes: changes.whole(block * blockSlots, end) });
              }
              sync(worker, { blocks });
            } else {
              const mine = [...changes.slots.keys()].filter((at) => ownerOf(changes.slots[at]!) === worker);
              const rows = new Int8Array(mine.length * dimensions);
              mine.forEach((at, index) =>
                rows.set(changes.rows.subarray(at * dimensions, (at + 1) * dimensions), index * dimensions),
              );
              sync(worker, { slots: Int32Array.from(mine, (at) => changes.slots[at]!), rows });
            }
          }
          holders = reach;
        }
        const scanners = holdersOf(size);
        // Only a slab that never sent its whole copy can lack holders: it scans here, then sends it.
        if (scanners > holders) throw new Error('the scan threads do not hold this collection');
        const found = await Promise.all(
          Array.from({ length: scanners }, (_, worker) =>
            this.request(this.worker(worker), { slab, query, wanted }),
          ),
        );
        if (found.length === 1) return found[0]!;
        const slots = new Int32Array(found.reduce((sum, part) => sum + part.length, 0));
        let at = 0;
        for (const part of found) {
          slots.set(part, at);
          at += part.length;
        }
        return slots;
      },
      detach: async () => {
        if (detached) return;
        detached = true;
        this.attached -= 1;
        if (this.attached > 0) {
          for (const worker of this.workers.slice(0, holders)) this.send(worker, { type: 'forget', slab });
        } else await this.stop();
      },
    };
  }

  private request(
    worker: Worker,
    scan: Omit<Extract<ScanRequest, { type: 'scan' }>, 'type' | 'id'>,
  ): Promise<Int32Array> {
    const id = (this.nextRequest += 1);
    const reply = new Promise<Int32Array>((resolve, reject) =>
      this.pending.set(id, { worker, resolve, reject }),
    );
    this.send(worker, { type: 'scan', id, ...scan });
    // Referenced while a scan is awaited: unreferenced threads would let the process exit under it.
    worker.ref();
    return reply;
  }

  private send(worker: Worker, request: ScanRequest): void {
    worker.postMessage(request);
  }

  /** The thread at `index`, started (with the ones before it) if it is not up. */
  private worker(index: number): Worker {
    while (this.workers.length <= index) {
      // Its garbage is small (queries and answers; the blocks are outside the heap): a small young
      // generation saves ~10 MB of resident memory per thread.
      const worker = startWorker(this.workerUrl, { resourceLimits: { maxYoungGenerationSizeMb: 2 } });
      worker.unref();
      worker.on('message', (reply: ScanReply) => {
        const waiting = this.pending.get(reply.id);
        this.pending.delete(reply.id);
        if (this.pending.size === 0) for (const each of this.workers) each.unref();
        if (!waiting) return;
        if ('slots' in reply) waiting.resolve(reply.slots);
        else waiting.reject(new Error(reply.error));
      });
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', (code) => {
        if (this.workers.includes(worker)) this.fail(new Error(`scan thread stopped (exit code ${code})`));
        else this.rejectPending(new Error('scan thread stopped'), worker);
      });
      this.workers.push(worker);
    }
    return this.workers[index]!;
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    const workers = this.workers;
    this.workers = [];
    this.rejectPending(error);
    // The others end after what they were sent (see `stop`).
    for (const worker of workers) this.send(worker, { type: 'stop' });
    this.onFailure(error);
  }

  /** Rejects the scans awaited from `worker`, or from every thread. */
  private rejectPending(error: Error, worker?: Worker): void {
    for (const [id, waiting] of this.pending) {
      if (worker && waiting.worker !== worker) continue;
      this.pending.delete(id);
      waiting.reject(error);
    }
  }

  /**
   * Asks the threads to end after the requests sent before, and resolves when they have:
   * terminating one inside a native scan aborts the whole process (usearch raises a C++ error on
   * the dying thread).
   */
  private async stop(): Promise<void> {
    const workers = this.workers;
    this.workers = [];
    await Promise.all(
      workers.map((worker) => {
        const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        this.send(worker, { type: 'stop' });
        worker.ref();
        return ended;
      }),
    );
  }
}
