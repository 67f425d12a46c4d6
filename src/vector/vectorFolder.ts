import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirLockedError, heldByThisProcess, isAlive, lockFolder } from '../dataDirLock.js';

const PRIMARY = 'vectors';
const LOCK = 'writer.lock';
const REPLICA = /^vectors\.replica-(\d+)-(\d+)$/;

export interface VectorFolder {
  dir: string;
  /** Another process held `DATA_DIR/vectors`: this folder is this process's own, removed when released. */
  replica: boolean;
  release(): void;
}

let replicas = 0;

/**
 * The folder a process keeps its embedded vector collections in. A collection's log has one writer:
 * opening it cuts off whatever was written past its last commit, so two processes on one folder
 * would destroy each other's writes. The first process to ask holds `DATA_DIR/vectors` (kept across
 * restarts). Another process on the same `DATA_DIR` — a second API process, a worker searching for
 * a tool — keeps a replica of its own, `DATA_DIR/vectors.replica-<pid>-<n>`, filled from the log if
 * it follows it (vectors from the embedding cache) and removed when it is released. Replicas of
 * processes that are gone are removed here: they may hold vectors of documents deleted since.
 */
export function claimVectorFolder(dataDir: string): VectorFolder {
  removeOrphanReplicas(dataDir);
  const primary = join(dataDir, PRIMARY);
  try {
    return { dir: primary, replica: false, release: lockFolder(primary, LOCK) };
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
  }
  replicas += 1;
  const dir = join(dataDir, `vectors.replica-${process.pid}-${replicas}`);
  rmSync(dir, { recursive: true, force: true });
  const unlock = lockFolder(dir, LOCK);
  return {
    dir,
    replica: true,
    release() {
      unlock();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function removeOrphanReplicas(dataDir: string): void {
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = REPLICA.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    const dir = join(dataDir, name);
    const live = pid === process.pid ? heldByThisProcess(dir, LOCK) : isAlive(pid);
    if (!live) rmSync(dir, { recursive: true, force: true });
  }
}
