import type Database from 'better-sqlite3';
import { startWorker, workerEntry } from '../workerThreads.js';
import { createAppendCommitter, type AppendOutcome, type SerializedAppend } from './sqliteAppends.js';

const APPEND_WORKER_URL = workerEntry('sqliteAppendWorker', import.meta.url);

export type AppendWorkerRequest =
  { type: 'commit'; id: number; batch: SerializedAppend[]; recordedAt: string } | { type: 'close' };

export type AppendWorkerReply = { id: number; outcomes: AppendOutcome[] } | { id: number; failure: string };

/** Commits groups of appends somewhere; one group at a time (the store waits for each). */
export interface AppendCommitter {
  commit(batch: SerializedAppend[], recordedAt: string): Promise<AppendOutcome[]>;
  close(): Promise<void>;
}

/** Commits on the calling thread, through its own connection (an in-memory store has no other). */
export function inThreadCommitter(db: Database.Database): AppendCommitter {
  const commit = createAppendCommitter(db);
  return {
    async commit(batch, recordedAt) {
      return commit(batch, recordedAt);
    },
    async close() {},
  };
}

/**
 * Commits in a worker thread with its own connection to the file. Started with the first commit.
 * A worker that cannot start or dies fails the group it held, and commits go on in the calling
 * thread (`fallback`): appends stay possible, only their fsyncs block that thread again.
 */
export function workerThreadCommitter(path: string, fallback: () => AppendCommitter): AppendCommitter {
  let worker: ReturnType<typeof startWorker> | null = null;
  let failed: AppendCommitter | null = null;
  let nextId = 1;
  const waiting = new Map<number, { resolve(outcomes: AppendOutcome[]): void; reject(error: Error): void }>();

  function giveUp(error: Error): void {
    failed ??= fallback();
    worker = null;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  }

  function started(): ReturnType<typeof startWorker> {
    if (worker) return worker;
    const thread = startWorker(APPEND_WORKER_URL, { workerData: { path } });
    thread.on('message', (reply: AppendWorkerReply) => {
      const caller = waiting.get(reply.id);
      if (!caller) return;
      waiting.delete(reply.id);
      if (waiting.size === 0) thread.unref();
      if ('outcomes' in reply) caller.resolve(reply.outcomes);
      else caller.reject(new Error(reply.failure));
    });
    // An error thrown in a worker arrives cloned, sometimes as a bare object ({ code }).
    thread.on('error', (error: Partial<Error> & { code?: string }) =>
      giveUp(
        new Error(
          `the event store's writer thread failed: ${error.message || error.code || 'unknown error'}`,
        ),
      ),
    );
    thread.on('exit', (code) => {
      if (worker === thread) giveUp(new Error(`the event store's writer thread exited (code ${code})`));
    });
    // Idle, it does not keep the process alive; a commit under way does (see `commit`). Its
    // connection is closed by a message, never by terminating it mid-commit.
    thread.unref();
    worker = thread;
    return thread;
  }

  return {
    commit(batch, recordedAt) {
      if (failed) return failed.commit(batch, recordedAt);
      const id = nextId++;
      return new Promise<AppendOutcome[]>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        const thread = started();
        thread.ref();
        thread.postMessage({ type: 'commit', id, batch, recordedAt } satisfies AppendWorkerRequest);
      });
    },
    async close() {
      const thread = worker;
      worker = null;
      if (!thread) return;
      const exited = new Promise((resolve) => thread.once('exit', resolve));
      // Kept alive until it has closed its connection: unreferenced, the process could end first.
      thread.ref();
      thread.postMessage({ type: 'close' } satisfies AppendWorkerRequest);
      await exited;
    },
  };
}
