import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openVectorStore } from '../../src/knowledge/vectorStore.js';
import { silentLogger } from '../../src/log.js';
import { createSqliteReadStore } from '../../src/readStore/sqliteReadStore.js';
import { unitVector } from '../contracts/vectorIndex.contract.js';

describe('embedded vector folders of processes sharing one DATA_DIR', () => {
  let dataDir = '';
  const readStore = createSqliteReadStore({ path: ':memory:' });
  const open = () =>
    openVectorStore({ dataDir, exactSearchBelow: 1_000, milvus: null, readStore, log: silentLogger });
  const record = (id: string, seed: number) => ({
    id,
    docId: id.split(':')[0]!,
    vector: unitVector(seed, 4),
  });

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'archivist-vector-folders-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
  after(() => readStore.close());

  it('gives the first store DATA_DIR/vectors and another its own replica, so neither writes the other’s log', async () => {
    const first = open();
    const second = open();
    const a = first.open('chunks', 4);
    const b = second.open('chunks', 4);
    expect(first.path('chunks')).to.equal(join(dataDir, 'vectors', 'chunks'));
    expect(second.path('chunks')).to.match(/vectors\.replica-\d+-\d+[/\\]chunks$/);
    await a.upsert([record('d1:1', 1), record('d1:2', 2)]);
    await a.commit('checkpoint-a');
    await b.upsert([record('d2:1', 3)]);
    await b.commit('checkpoint-b');
    expect(await a.count()).to.equal(2);
    expect(await b.count()).to.equal(1);

    // The replica goes with its store; the primary keeps what was committed to it.
    await b.close();
    const replica = join(second.path('chunks'), '..');
    second.close();
    expect(existsSync(replica)).to.equal(false);
    await a.close();
    first.close();
    const again = open();
    const reopened = again.open('chunks', 4);
    expect(again.path('chunks')).to.equal(join(dataDir, 'vectors', 'chunks'));
    expect(await reopened.count()).to.equal(2);
    expect(await reopened.checkpoint()).to.equal('checkpoint-a');
    await reopened.close();
    again.close();
  });

  it('removes replicas left by processes that are gone, and keeps those of live ones', () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const deadPid = Number(gone.stdout);
    const orphan = join(dataDir, `vectors.replica-${deadPid}-1`);
    const live = join(dataDir, `vectors.replica-${process.ppid}-1`);
    for (const folder of [orphan, live]) {
      mkdirSync(join(folder, 'chunks'), { recursive: true });
      writeFileSync(join(folder, 'chunks', 'vectors.log'), 'vectors of a deleted document');
    }
    const store = open();
    store.path('chunks'); // the folder is claimed on first use
    expect(readdirSync(dataDir).sort()).to.deep.equal(['vectors', `vectors.replica-${process.ppid}-1`]);
    store.close();
  });
  it('claims nothing once closed: a late call fails, and the next store of this process gets DATA_DIR/vectors', async () => {
    const first = open();
    first.path('chunks');
    first.close();
    await first.records.read().then(
      () => expect.fail('a closed store read its record'),
      (error: Error) => expect(error.message).to.match(/closed/),
    );
    const second = open();
    expect(second.path('chunks')).to.equal(join(dataDir, 'vectors', 'chunks'));
    second.close();
  });
});
