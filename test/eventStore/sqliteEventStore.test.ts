import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';

const metadata = { now: '2026-11-22T10:00:00.000Z', actorId: 'tester', correlationId: 'corr' };

describe('SQLite event store on disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'archivist-es-disk-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps acknowledged events across close and reopen', async () => {
    const path = join(dir, 'events.db');
    const first = createSqliteEventStore({ path });
    await first.append('s-1', [{ type: 'A', data: { n: 1 }, metadata }]);
    await first.close();
    const second = createSqliteEventStore({ path });
    const events = await second.readStream('s-1');
    expect(events.map((e) => e.data)).to.deep.equal([{ n: 1 }]);
    await second.append('s-1', [{ type: 'B', data: { n: 2 }, metadata }], { expectedVersion: 1 });
    expect(await second.headPosition()).to.equal(2);
    await second.close();
  });

  it('leaves no readable trace of a deleted stream in any file on disk', async () => {
    const path = join(dir, 'events.db');
    const store = createSqliteEventStore({ path });
    const secret = 'PURGE-ME-7f3a9c';
    // Small events and one large enough to spill into overflow pages.
    await store.append('conversation-doomed', [
      { type: 'MessageAdded', data: { text: `short ${secret}` }, metadata },
      { type: 'MessageAdded', data: { text: `${secret} `.repeat(3000) }, metadata },
    ]);
    for (let i = 0; i < 50; i += 1) {
      await store.append(`conversation-kept-${i}`, [
        { type: 'MessageAdded', data: { text: `kept ${i}` }, metadata },
      ]);
    }
    const filesContain = (needle: string): string[] =>
      readdirSync(dir).filter((file) => readFileSync(join(dir, file)).includes(Buffer.from(needle)));
    expect(filesContain(secret)).to.not.be.empty;
    await store.deleteStream('conversation-doomed');
    // Deletions are scrubbed from the files in batches (the WAL keeps older page copies until then).
    await store.deleteStream('conversation-kept-0');
    await store.scrub();
    expect(filesContain(secret)).to.deep.equal([]);
    expect(filesContain('kept 49')).to.not.be.empty;
    await store.close();
    expect(filesContain(secret)).to.deep.equal([]);
  });

  it('survives kill -9 during a burst of appends: every acknowledged append is there, the log reads cleanly', async function () {
    this.timeout(60_000);
    for (let run = 0; run < 3; run += 1) {
      const path = join(dir, `crash-${run}.db`);
      const acks = await burstThenKill(path, 1500 + run * 700);
      expect(acks.length).to.be.greaterThan(1000);

      const db = new Database(path, { readonly: true });
      expect(db.pragma('integrity_check', { simple: true })).to.equal('ok');
      db.close();

      const store = createSqliteEventStore({ path });
      for (const ack of acks) {
        const events = await store.readStream(ack.stream, { fromVersion: ack.version, maxCount: 1 });
        expect(events[0], `acknowledged ${ack.stream}@${ack.version}`).to.not.equal(undefined);
        expect(events[0]!.position).to.equal(ack.position);
      }
      const all = await store.readAll();
      expect(all.length).to.be.at.least(acks.length);
      for (let i = 1; i < all.length; i += 1)
        expect(all[i]!.position).to.be.greaterThan(all[i - 1]!.position);
      for (const event of all) expect(event.data).to.have.property('padding');
      // Every stream is dense: versions 1..n, none missing in the middle.
      const byStream = new Map<string, number[]>();
      for (const event of all)
        byStream.set(event.streamName, [...(byStream.get(event.streamName) ?? []), event.streamVersion]);
      for (const versions of byStream.values()) expect(versions).to.deep.equal(versions.map((_, i) => i + 1));
      await store.close();
    }
  });
});

async function burstThenKill(
  path: string,
  killAfterAcks: number,
): Promise<Array<{ stream: string; version: number; position: number }>> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'appendBurst.ts'), path],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const acks: Array<{ stream: string; version: number; position: number }> = [];
  let buffer = '';
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => resolve());
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const [kind, stream, version, position] = line.split(' ');
        if (kind !== 'ack') continue;
        acks.push({ stream: stream!, version: Number(version), position: Number(position) });
        if (acks.length === killAfterAcks) child.kill('SIGKILL');
      }
    });
  });
  return acks;
}
