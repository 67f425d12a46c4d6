import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
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

/**
 * Reads every complete frame of the log up to `limit` bytes, with the offset where each ends. A
 * frame cut short (a crash while appending) ends the read; the caller truncates the file there.
 */
export function readLog(
  path: string,
  dimensions: number,
  limit: number,
): { entries: LogEntry[]; ends: number[]; bytes: number } {
  if (!existsSync(path)) return { entries: [], ends: [], bytes: 0 };
  const data = readFileSync(path).subarray(0, limit);
  const entries: LogEntry[] = [];
  const ends: number[] = [];
  let at = 0;
  for (;;) {
    if (at + 3 > data.length) break;
    const op = data.readUInt8(at);
    const idLength = data.readUInt16LE(at + 1);
    const docAt = at + 3 + idLength;
    if (docAt + 2 > data.length) break;
    const docLength = data.readUInt16LE(docAt);
    const vectorAt = docAt + 2 + docLength;
    const end = vectorAt + (op === UPSERT ? dimensions * 4 : 0);
    if (end > data.length || (op !== UPSERT && op !== DELETE)) break;
    const id = data.toString('utf8', at + 3, docAt);
    if (op === UPSERT) {
      const vector = new Float32Array(dimensions);
      new Uint8Array(vector.buffer).set(data.subarray(vectorAt, end));
      entries.push({ op: 'upsert', id, docId: data.toString('utf8', docAt + 2, vectorAt), vector });
    } else entries.push({ op: 'delete', id });
    ends.push(end);
    at = end;
  }
  return { entries, ends, bytes: at };
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
