import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
}

/** Whether a process of this pid runs (EPERM: it runs as another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Folders locked by this process: a lock file with our own pid may be a previous run's (PID 1 in containers). */
const heldHere = new Set<string>();

/**
 * One embedded Archivist per data folder: two would both think they own the projections and the
 * queues. A lock file holds the owner's pid; a lock left by a process that died is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  return lockFolder(dataDir, 'archivist.lock');
}

/** Whether this process holds `dir`'s lock file `name`. */
export function heldByThisProcess(dir: string, name: string): boolean {
  return heldHere.has(join(dir, name));
}

/** Locks `dir` for this process with the lock file `name`; throws DataDirLockedError when held. */
export function lockFolder(dir: string, name: string): () => void {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  if (heldHere.has(path)) throw new DataDirLockedError(`this process is already using ${dir}`);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldHere.add(path);
      return () => {
        heldHere.delete(path);
        rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new DataDirLockedError(`another Archivist process (pid ${holder}) is using ${dir}`);
      }
      rmSync(path, { force: true });
    }
  }
  throw new DataDirLockedError(`could not lock ${dir}`);
}
