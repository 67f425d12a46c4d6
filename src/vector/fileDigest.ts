import { closeSync, openSync, readSync } from 'node:fs';
import { createHash } from 'node:crypto';

/** SHA-256 of a file, read a megabyte at a time (a graph file can be hundreds of megabytes). */
export function fileDigest(path: string): string {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(1 << 20);
  const fd = openSync(path, 'r');
  try {
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}
