import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, readFile, rename, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { assertBlobName, BlobMissingError, BlobStoreUnavailableError, type BlobStore } from './blobStore.js';

/** Errors of the disk that a later call may not meet: the store cannot serve now (a 503, a retry). */
const UNAVAILABLE_CODES = new Set([
  'ENOSPC',
  'EDQUOT',
  'EROFS',
  'EIO',
  'EMFILE',
  'ENFILE',
  'EACCES',
  'EPERM',
  'EBADF',
]);

function unavailable(error: unknown, doing: string): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && UNAVAILABLE_CODES.has(code))
    return new BlobStoreUnavailableError(`blob store cannot ${doing}: ${(error as Error).message}`);
  return error as Error;
}

/**
 * What flushing a folder may answer where the platform or file system cannot do it (Windows opens
 * no folder as a file; some file systems refuse to flush one): the folder goes unflushed, as
 * PostgreSQL leaves it on those systems, rather than refusing every upload.
 */
const FOLDER_FLUSH_UNSUPPORTED = new Set(['EISDIR', 'EINVAL', 'ENOTSUP', 'EPERM', 'EACCES']);

const unsupported = (error: unknown): boolean =>
  FOLDER_FLUSH_UNSUPPORTED.has((error as NodeJS.ErrnoException).code ?? '');

/**
 * Blobs as files in `dir` (`DATA_DIR/blobs`). API and workers share them only when they run on one
 * host or mount the same folder; otherwise use the NATS adapter.
 *
 * A blob is durable when `put` resolves, power loss included: its data is flushed before it is
 * renamed into place, and the folder is flushed after (an asynchronous upload is acknowledged with
 * its task before a worker reads the blob). Every call goes through libuv's thread pool: made
 * synchronously, to save the round trips, a small upload's `unlink` held the event loop 0.35 ms
 * (profiled, against ~10 µs alone) — likely waiting for the file system's journal, which the event
 * store's commits flush all the time.
 */
export function createFileBlobStore(dir: string): BlobStore {
  let ready: Promise<FileHandle | null> | null = null;
  let closed = false;
  // Made once, with a handle on the folder to flush its entries through; a failure is not
  // remembered, so a folder fixed meanwhile is used on the next call.
  const folder = (): Promise<FileHandle | null> =>
    (ready ??= mkdir(dir, { recursive: true })
      .then(() =>
        open(dir, 'r').catch((error: unknown) => {
          if (unsupported(error)) return null;
          throw error;
        }),
      )
      .catch((error: unknown) => {
        ready = null;
        throw error;
      }));
  /** Closes the handle on the folder; the next call opens it (making the folder) again. */
  const forgetFolder = async (): Promise<void> => {
    const handle = ready;
    ready = null;
    await handle?.then((opened) => opened?.close()).catch(() => undefined);
  };
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
      const name = randomUUID();
      // Written aside and renamed: a rename is atomic, so a crash leaves a stray `.partial` file at
      // worst, never a blob with half its bytes.
      const temporary = join(dir, `.${name}.partial`);
      try {
        const directory = await folder();
        await writeFile(temporary, bytes, { flag: 'wx', flush: true });
        await rename(temporary, path(name));
        await directory?.sync().catch((error: unknown) => {
          if (!unsupported(error)) throw error;
        });
      } catch (error) {
        // Whatever of it reached the folder goes: a blob not known durable is not handed out.
        // Never written, or renamed already: nothing to remove is no error.
        await Promise.all([temporary, path(name)].map((leftover) => unlink(leftover).catch(() => undefined)));
        if (closed) throw new BlobStoreUnavailableError('blob store is closed');
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          // The folder was removed under us: the next call makes it again.
          void forgetFolder();
          throw new BlobStoreUnavailableError(`blob folder ${dir} is gone: ${(error as Error).message}`);
        }
        throw unavailable(error, 'store a blob');
      }
      return name;
    },
    async get(name) {
      assertOpen();
      try {
        return await readFile(path(name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          throw new BlobMissingError(`blob ${name} is gone`);
        throw unavailable(error, 'read a blob');
      }
    },
    async delete(name) {
      assertOpen();
      // `unlink`, not `rm({ force })`: a blob is one file, and `rm` walks it as a tree (lstat first).
      await unlink(path(name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw unavailable(error, 'remove a blob');
      });
    },
    async health() {
      if (closed) return { healthy: false, reason: 'blob store is closed' };
      try {
        await folder();
        await access(dir, constants.W_OK);
        return { healthy: true, reason: null };
      } catch (error) {
        return { healthy: false, reason: `blob folder ${dir}: ${(error as Error).message}` };
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await forgetFolder();
    },
  };
}
