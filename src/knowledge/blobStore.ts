import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Where uploaded bytes wait for the ingestion job that reads them: files under `DATA_DIR/blobs`.
 * API and workers share DATA_DIR when they run on one host (or mount it). Blobs are removed once
 * their job has finished with them.
 */
export interface BlobStore {
  /** Stores the bytes (atomically: a crash leaves no half-written blob) and returns their name. */
  put(bytes: Uint8Array): Promise<string>;
  /** The blob's bytes; a typed error when it is gone. */
  get(name: string): Promise<Buffer>;
  delete(name: string): Promise<void>;
}

export class BlobMissingError extends Error {
  override readonly name = 'BlobMissingError';
}

const NAME = /^[0-9a-f-]{36}$/;

export function createFileBlobStore(dir: string): BlobStore {
  let ready: Promise<unknown> | null = null;
  const path = (name: string): string => {
    if (!NAME.test(name)) throw new BlobMissingError(`invalid blob name ${JSON.stringify(name)}`);
    return join(dir, name);
  };
  return {
    async put(bytes) {
      await (ready ??= mkdir(dir, { recursive: true }));
      const name = randomUUID();
      const temporary = join(dir, `.${name}.partial`);
      await writeFile(temporary, bytes);
      await rename(temporary, path(name));
      return name;
    },
    async get(name) {
      try {
        return await readFile(path(name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          throw new BlobMissingError(`blob ${name} is gone`);
        throw error;
      }
    },
    async delete(name) {
      // `unlink`, not `rm({ force })`: a blob is one file, and `rm` walks it as a tree (lstat first).
      await unlink(path(name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    },
  };
}
