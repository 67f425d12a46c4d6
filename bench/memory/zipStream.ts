/**
 * A ZIP writer for benchmark inputs too large to build comfortably in memory: each entry's content
 * comes from a generator of chunks, is deflated as it is produced, and only the compressed bytes are
 * kept (a 270 MB part costs ~50 MB here). Classic ZIP (no ZIP64): every size stays below 4 GiB.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { constants, crc32, createDeflateRaw } from 'node:zlib';

export interface StreamedEntry {
  name: string;
  chunks: () => Iterable<string | Buffer>;
}

interface Deflated {
  name: Buffer;
  compressed: Buffer[];
  compressedSize: number;
  size: number;
  crc: number;
}

async function deflateEntry(entry: StreamedEntry): Promise<Deflated> {
  const deflate = createDeflateRaw({ level: constants.Z_DEFAULT_COMPRESSION });
  const compressed: Buffer[] = [];
  let compressedSize = 0;
  deflate.on('data', (chunk: Buffer) => {
    compressed.push(chunk);
    compressedSize += chunk.length;
  });
  const ended = new Promise<void>((resolve, reject) => {
    deflate.once('end', resolve);
    deflate.once('error', reject);
  });
  let size = 0;
  let crc = 0;
  for (const piece of entry.chunks()) {
    const buffer = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
    size += buffer.length;
    crc = crc32(buffer, crc);
    // Respect backpressure so the uncompressed text is never queued up in memory.
    if (!deflate.write(buffer)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await ended;
  return { name: Buffer.from(entry.name, 'utf8'), compressed, compressedSize, size, crc };
}

function localHeader(entry: Deflated): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(0x800, 6); // UTF-8 names
  header.writeUInt16LE(8, 8);
  header.writeUInt32LE(entry.crc >>> 0, 14);
  header.writeUInt32LE(entry.compressedSize, 18);
  header.writeUInt32LE(entry.size, 22);
  header.writeUInt16LE(entry.name.length, 26);
  return header;
}

function centralHeader(entry: Deflated, offset: number): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(20, 6);
  header.writeUInt16LE(0x800, 8);
  header.writeUInt16LE(8, 10);
  header.writeUInt32LE(entry.crc >>> 0, 16);
  header.writeUInt32LE(entry.compressedSize, 20);
  header.writeUInt32LE(entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  header.writeUInt32LE(offset, 42);
  return header;
}

/** Writes `entries` to `path`; returns the archive's size and its total uncompressed size. */
export async function writeZipFile(
  path: string,
  entries: readonly StreamedEntry[],
): Promise<{ bytes: number; uncompressed: number }> {
  const fd = openSync(path, 'w');
  try {
    const centrals: Buffer[] = [];
    let offset = 0;
    let uncompressed = 0;
    for (const entry of entries) {
      const deflated = await deflateEntry(entry);
      centrals.push(centralHeader(deflated, offset), deflated.name);
      for (const part of [localHeader(deflated), deflated.name, ...deflated.compressed]) {
        writeSync(fd, part);
        offset += part.length;
      }
      uncompressed += deflated.size;
    }
    const directory = Buffer.concat(centrals);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(entries.length, 8);
    end.writeUInt16LE(entries.length, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(offset, 16);
    writeSync(fd, directory);
    writeSync(fd, end);
    return { bytes: offset + directory.length + end.length, uncompressed };
  } finally {
    closeSync(fd);
  }
}
