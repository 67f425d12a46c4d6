import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
}

function isAlive(pid: number): boolean {
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
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'archivist.lock');
  if (heldHere.has(path)) throw new DataDirLockedError(`this process is already using ${dataDir}`);
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
        throw new DataDirLockedError(`another Archivist process (pid ${holder}) is using ${dataDir}`);
      }
      rmSync(path, { force: true });
    }
  }
  throw new DataDirLockedError(`could not lock ${dataDir}`);
}
