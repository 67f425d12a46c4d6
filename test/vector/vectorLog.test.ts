import { mkdtemp, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openLogWriter, replayLog, type LogEntry } from '../../src/vector/vectorLog.js';
import { unitVector } from '../contracts/vectorIndex.contract.js';

describe('vector log', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'archivist-vector-log-'));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  const entries: LogEntry[] = Array.from({ length: 200 }, (_, i) =>
    i % 7 === 6
      ? { op: 'delete', id: `chunk-${i - 1}` }
      : {
          op: 'upsert',
          id: `chunk-${i}-${'x'.repeat(i % 13)}`,
          docId: `doc-${i % 5}`,
          vector: unitVector(i + 1, 64),
        },
  );
  const replayed = (path: string, limit: number, blockBytes?: number) => {
    const seen: Array<{ entry: LogEntry; end: number }> = [];
    const bytes = replayLog(
      path,
      64,
      limit,
      (entry, end) =>
        seen.push({ entry: entry.op === 'upsert' ? { ...entry, vector: entry.vector.slice() } : entry, end }),
      blockBytes,
    );
    return { seen, bytes };
  };

  it('replays every frame in order, whatever the read block cuts through (frames, ids, unaligned vectors)', async () => {
    const path = join(dir, 'blocks.log');
    const writer = openLogWriter(path, 64, 0);
    writer.append(entries);
    writer.sync();
    writer.close();
    const whole = replayed(path, writer.size);
    expect(whole.seen.map(({ entry }) => entry)).to.deep.equal(entries);
    expect(whole.bytes).to.equal(writer.size);
    // A block of 1,000 bytes holds about three frames: most frames straddle two reads.
    const small = replayed(path, writer.size, 1_000);
    expect(small.seen).to.deep.equal(whole.seen);
  });

  it('stops at a frame cut short by a crash, and at the committed limit', async () => {
    const path = join(dir, 'cut.log');
    const writer = openLogWriter(path, 64, 0);
    writer.append(entries.slice(0, 10));
    writer.close();
    const full = replayed(path, writer.size);
    await truncate(path, writer.size - 10);
    const cut = replayed(path, writer.size, 500);
    expect(cut.seen).to.deep.equal(full.seen.slice(0, 9));
    expect(cut.bytes).to.equal(full.seen[8]!.end);
    expect(replayed(path, full.seen[4]!.end, 500).seen).to.deep.equal(full.seen.slice(0, 5));
  });
});
