import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A file system of a few megabytes that a test can fill up: a tmpfs mounted for it. */
export interface SmallDisk {
  dir: string;
  /** Writes filler files until the disk refuses one (ENOSPC). */
  fill(): void;
  /** Removes the filler files. */
  free(): void;
  dispose(): void;
}

/**
 * Mounts a tmpfs of `megabytes` (root with CAP_SYS_ADMIN, as on the CI machines); null, with the
 * reason, where mounting is not permitted.
 */
export function mountSmallDisk(megabytes: number): SmallDisk | { unavailable: string } {
  const dir = mkdtempSync(join(tmpdir(), 'archivist-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const detail = String((error as { stderr?: Buffer }).stderr ?? error).trim();
    return { unavailable: `cannot mount a small tmpfs to fill (${detail || 'mount failed'})` };
  }
  const fillers: string[] = [];
  return {
    dir,
    fill() {
      for (;;) {
        const file = join(dir, `filler-${fillers.length}`);
        try {
          writeFileSync(file, Buffer.alloc(64 * 1024));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return;
          throw error;
        }
        fillers.push(file);
      }
    },
    free() {
      for (const file of fillers.splice(0)) rmSync(file, { force: true });
    },
    dispose() {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
