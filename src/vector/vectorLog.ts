import {
  closeSync,
  existsSync,
  fsync,
  fsyncSync,
  openSync,
  readSync,
  renameSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';

/** One write of the index, as the log keeps it. */
export type LogEntry =
  { op: 'upsert'; id: string; docId: string; vector: Float32Array } | { op: 'delete'; id: string };

const UPSERT = 1;
const DELETE = 2;

function encode(entry: LogEntry, dimensions: number): Buffer {
  const id = Buffer.from(entry.id, 'utf8');
  const docId = entry.op === 'upsert' ? Buffer.from(entry.docId, 'utf8') : Buffer.alloc(0);
  const vectorBytes = entry.op === 'upsert' ? dimensions * 4 : 0;
  const frame = Buffer.alloc(1 + 2 + id.length + 2 + docId.length + vectorBytes);
  let at = frame.writeUInt8(entry.op === 'upsert' ? UPSERT : DELETE, 0);
  at = frame.writeUInt16LE(id.length, at);
  at += id.copy(frame, at);
  at = frame.writeUInt16LE(docId.length, at);
  at += docId.copy(frame, at);
  if (entry.op === 'upsert') {
    Buffer.from(entry.vector.buffer, entry.vector.byteOffset, vectorBytes).copy(frame, at);
  }
  return frame;
}

/** Bytes read from the log at a time on replay: the log of 1M vectors is 1.6 GB. */
const REPLAY_BLOCK = 16 << 20;

/**
 * Replays every complete frame of the log up to `limit` bytes, in order, with the offset where each
 * ends; returns the offset after the last one. A frame cut short (a crash while appending) ends the
 * replay; the caller truncates the file there. An upsert's vector is a view into the read buffer,
 * valid only during the call (copy it to keep it).
 */
export function replayLog(
  path: string,
  dimensions: number,
  limit: number,
  visit: (entry: LogEntry, end: number) => void,
  blockBytes = REPLAY_BLOCK,
): number {
  if (!existsSync(path)) return 0;
  const fd = openSync(path, 'r');
  let buffer = Buffer.alloc(blockBytes);
  let held = 0; // bytes in `buffer` not yet replayed
  let consumed = 0; // file offset of buffer[0]
  let done = false;
  try {
    while (!done) {
      const read = readSync(
        fd,
        buffer,
        held,
        Math.min(buffer.length - held, limit - consumed - held),
        consumed + held,
      );
      held += read;
      let at = 0;
      for (;;) {
        const frame = frameAt(buffer, at, held, dimensions);
        if (!frame) break;
        if (frame === 'corrupt') {
          done = true;
          break;
        }
        visit(frame.entry, consumed + frame.end);
        at = frame.end;
      }
      buffer.copy(buffer, 0, at, held);
      held -= at;
      consumed += at;
      if (read === 0) done = true;
      // A frame larger than the buffer (very long ids) needs a larger buffer.
      else if (held === buffer.length) buffer = Buffer.concat([buffer, Buffer.alloc(buffer.length)]);
    }
  } finally {
    closeSync(fd);
  }
  return consumed;
}

/** The frame at `at`, null when the bytes up to `end` hold only part of it, 'corrupt' for an unknown op. */
function frameAt(
  data: Buffer,
  at: number,
  end: number,
  dimensions: number,
): { entry: LogEntry; end: number } | 'corrupt' | null {
  if (at + 3 > end) return null;
  const op = data.readUInt8(at);
  if (op !== UPSERT && op !== DELETE) return 'corrupt';
  const idLength = data.readUInt16LE(at + 1);
  const docAt = at + 3 + idLength;
  if (docAt + 2 > end) return null;
  const docLength = data.readUInt16LE(docAt);
  const vectorAt = docAt + 2 + docLength;
  const frameEnd = vectorAt + (op === UPSERT ? dimensions * 4 : 0);
  if (frameEnd > end) return null;
  const id = data.toString('utf8', at + 3, docAt);
  if (op === DELETE) return { entry: { op: 'delete', id }, end: frameEnd };
  const docId = data.toString('utf8', docAt + 2, vectorAt);
  // Aligned for a Float32Array view when the frame's vector starts at a multiple of 4; else copied.
  const offset = data.byteOffset + vectorAt;
  const vector =
    offset % 4 === 0
      ? new Float32Array(data.buffer, offset, dimensions)
      : new Float32Array(new Uint8Array(data.subarray(vectorAt, frameEnd)).buffer);
  return { entry: { op: 'upsert', id, docId, vector }, end: frameEnd };
}

/** An append-only file of index writes: cheap to append, replayed on open, rewritten when compacted. */
export function openLogWriter(path: string, dimensions: number, validBytes: number) {
  if (existsSync(path)) truncateSync(path, validBytes);
  let fd = openSync(path, 'a');
  let size = validBytes;
  return {
    get size(): number {
      return size;
    },
    append(entries: readonly LogEntry[]): void {
      if (entries.length === 0) return;
      const bytes = Buffer.concat(entries.map((entry) => encode(entry, dimensions)));
      writeSync(fd, bytes);
      size += bytes.length;
    },
    sync(): void {
      fsyncSync(fd);
    },
    /** `sync` on libuv's thread pool. The caller must not close or rewrite the log until it ends. */
    syncInBackground(): Promise<void> {
      return new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
    },
    /** Replaces the log with just these entries (the live records): the file stops growing with churn. */
    rewrite(entries: readonly LogEntry[]): void {
      const bytes = Buffer.concat(entries.map((entry) => encode(entry, dimensions)));
      const temporary = `${path}.compact`;
      writeFileSync(temporary, bytes, { flush: true });
      closeSync(fd);
      renameSync(temporary, path);
      fd = openSync(path, 'a');
      size = bytes.length;
    },
    close(): void {
      closeSync(fd);
    },
  };
}
