import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertBlobName, BlobMissingError, BlobStoreUnavailableError, type BlobStore } from './blobStore.js';

/**
 * Blobs as files in `dir` (`DATA_DIR/blobs`). API and workers share them only when they run on one
 * host or mount the same folder; otherwise use the NATS adapter.
 */
export function createFileBlobStore(dir: string): BlobStore {
  let ready: Promise<unknown> | null = null;
  let closed = false;
  // Made once; a failure is not remembered, so a folder fixed meanwhile is used on the next call.
  const ensureDir = (): Promise<unknown> =>
    (ready ??= mkdir(dir, { recursive: true }).catch((error: unknown) => {
      ready = null;
      throw error;
    }));
  const path = (name: string): string => {
    assertBlobName(name);
    return join(dir, name);
  };
  const assertOpen = (): void => {
    if (closed) throw new BlobStoreUnavailableError('blob store is closed');
  };
  return {
    async put(bytes) {
      assertOpen();
      await ensureDir();
      const name = randomUUID();
      // Written aside and renamed: a rename is atomic, so a crash leaves a stray `.partial` file at
      // worst, never a blob with half its bytes.
      const temporary = join(dir, `.${name}.partial`);
      await writeFile(temporary, bytes);
      await rename(temporary, path(name));
      return name;
    },
    async get(name) {
      assertOpen();
      try {
        return await readFile(path(name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          throw new BlobMissingError(`blob ${name} is gone`);
        throw error;
      }
    },
    async delete(name) {
      assertOpen();
      // `unlink`, not `rm({ force })`: a blob is one file, and `rm` walks it as a tree (lstat first).
      await unlink(path(name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    },
    async health() {
      if (closed) return { healthy: false, reason: 'blob store is closed' };
      try {
        await ensureDir();
        await access(dir, constants.W_OK);
        return { healthy: true, reason: null };
      } catch (error) {
        return { healthy: false, reason: `blob folder ${dir}: ${(error as Error).message}` };
      }
    },
    async close() {
      closed = true;
    },
  };
}
