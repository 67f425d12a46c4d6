import { randomUUID } from 'node:crypto';
import {
  closeSync,
  constants,
  fdatasync,
  fstatSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { access, mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { assertBlobName, BlobMissingError, BlobStoreUnavailableError, type BlobStore } from './blobStore.js';

const flushData = promisify(fdatasync);

/**
 * Blobs up to this size are written, read and removed with synchronous calls. Each asynchronous file
 * call is a round trip through libuv's thread pool, and a small upload made nine of them (write,
 * rename, read, remove): 280–340 µs of CPU against 60 µs for the same calls made directly
 * (`docs/benchmarks.md`), for a few tens of microseconds of disk work that blocks nothing. Larger
 * blobs keep the thread pool, so a long write or read never holds the event loop.
 */
export const SMALL_BLOB_BYTES = 64 * 1024;

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

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let written = 0; written < bytes.byteLength;) {
    written += writeSync(fd, bytes, written, bytes.byteLength - written);
  }
}

/** The whole of a small file, read from its open descriptor; null when it is not small. */
function readSmall(fd: number): Buffer | null {
  const size = fstatSync(fd).size;
  if (size > SMALL_BLOB_BYTES) return null;
  const bytes = Buffer.allocUnsafe(size);
  for (let read = 0; read < size;) {
    const got = readSync(fd, bytes, read, size - read, read);
    if (got === 0) return bytes.subarray(0, read);
    read += got;
  }
  return bytes;
}

/**
 * Blobs as files in `dir` (`DATA_DIR/blobs`). API and workers share them only when they run on one
 * host or mount the same folder; otherwise use the NATS adapter.
 *
 * A blob is durable when `put` resolves, power loss included: its data is flushed before it is
 * renamed into place, and the folder is flushed after (an asynchronous upload is acknowledged with
 * its task before a worker reads the blob). The flushes run in the thread pool.
 */
export function createFileBlobStore(dir: string): BlobStore {
  let ready: Promise<FileHandle> | null = null;
  let closed = false;
  // Made once, with a handle on the folder to flush its entries through; a failure is not
  // remembered, so a folder fixed meanwhile is used on the next call.
  const folder = (): Promise<FileHandle> =>
    (ready ??= mkdir(dir, { recursive: true })
      .then(() => open(dir, 'r'))
      .catch((error: unknown) => {
        ready = null;
        throw error;
      }));
  /** Closes the handle on the folder; the next call opens it (making the folder) again. */
  const forgetFolder = async (): Promise<void> => {
    const handle = ready;
    ready = null;
    await handle?.then((opened) => opened.close()).catch(() => undefined);
  };
  const path = (name: string): string => {
    assertBlobName(name);
    return join(dir, name);
  };
  const assertOpen = (): void => {
    if (closed) throw new BlobStoreUnavailableError('blob store is closed');
  };

  async function writeData(temporary: string, bytes: Uint8Array): Promise<void> {
    if (bytes.byteLength > SMALL_BLOB_BYTES) {
      const handle = await open(temporary, 'wx');
      try {
        await handle.writeFile(bytes);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      return;
    }
    const fd = openSync(temporary, 'wx');
    try {
      writeAll(fd, bytes);
      await flushData(fd);
    } finally {
      closeSync(fd);
    }
  }

  return {
    async put(bytes) {
      assertOpen();
      const name = randomUUID();
      // Written aside and renamed: a rename is atomic, so a crash leaves a stray `.partial` file at
      // worst, never a blob with half its bytes.
      const temporary = join(dir, `.${name}.partial`);
      try {
        const directory = await folder();
        await writeData(temporary, bytes);
        renameSync(temporary, path(name));
        await directory.sync();
      } catch (error) {
        // Whatever of it reached the folder goes: a blob not known durable is not handed out.
        for (const leftover of [temporary, path(name)]) {
          try {
            unlinkSync(leftover);
          } catch {
            // Never written, or renamed already.
          }
        }
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
      const file = path(name);
      let fd: number;
      try {
        fd = openSync(file, 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          throw new BlobMissingError(`blob ${name} is gone`);
        throw unavailable(error, 'read a blob');
      }
      let small: Buffer | null;
      try {
        small = readSmall(fd);
      } catch (error) {
        throw unavailable(error, 'read a blob');
      } finally {
        closeSync(fd);
      }
      if (small) return small;
      try {
        return await readFile(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          throw new BlobMissingError(`blob ${name} is gone`);
        throw unavailable(error, 'read a blob');
      }
    },
    async delete(name) {
      assertOpen();
      try {
        // `unlink`, not `rm({ force })`: a blob is one file, and `rm` walks it as a tree (lstat first).
        unlinkSync(path(name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unavailable(error, 'remove a blob');
      }
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
