/**
 * The embedded event store's writer: a worker thread that holds the writing connection and commits
 * each group of appends the store sends, so the fsync every commit waits for (`synchronous=FULL`)
 * blocks this thread, not the one serving requests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { configureEventDatabase, createAppendCommitter } from './sqliteAppends.js';
import type { AppendWorkerReply, AppendWorkerRequest } from './sqliteAppendThread.js';

const port = parentPort!;
const db = new Database((workerData as { path: string }).path);
configureEventDatabase(db);
const commit = createAppendCommitter(db);

port.on('message', (request: AppendWorkerRequest) => {
  if (request.type === 'close') {
    db.close();
    port.close();
    return;
  }
  let reply: AppendWorkerReply;
  try {
    reply = { id: request.id, outcomes: commit(request.batch, request.recordedAt) };
  } catch (error) {
    reply = { id: request.id, failure: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
