import { expect } from 'chai';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { createRuntime } from '../src/runtime.js';

describe('runtime wiring', () => {
  it("indexes and searches text through the parsing stage's normaliser (Arabic variants, diacritics)", async () => {
    const runtime = await createRuntime(loadConfig({ EVENT_STORE: 'memory' }), { log: silentLogger });
    await runtime.readStore.ensureCollection({ name: 'probe', textFields: ['text'] });
    await runtime.readStore.write([
      { op: 'upsert', collection: 'probe', doc: { id: 'a', text: 'إدارة المكتبة العامّة' } },
    ]);
    const hits = await runtime.readStore.search('probe', 'ادارة المكتبه العامة');
    expect(hits.map((hit) => hit.doc.id)).to.deep.equal(['a']);
    await runtime.stop();
  });

  it('refuses a second embedded runtime on the same data folder', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dataDir = mkdtempSync(join(tmpdir(), 'archivist-lock-'));
    const first = await createRuntime(loadConfig({ DATA_DIR: dataDir }), { log: silentLogger });
    const refused = await createRuntime(loadConfig({ DATA_DIR: dataDir }), { log: silentLogger }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused)
      .to.be.an('error')
      .with.property('message')
      .that.matches(/is already using/);
    await first.stop();
    const again = await createRuntime(loadConfig({ DATA_DIR: dataDir }), { log: silentLogger });
    await again.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('removes uploads a killed process left under DATA_DIR/tmp when it starts serving', async () => {
    const { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { runProcess } = await import('../src/process.js');
    const dataDir = mkdtempSync(join(tmpdir(), 'archivist-sweep-'));
    mkdirSync(join(dataDir, 'tmp'));
    writeFileSync(join(dataDir, 'tmp', 'left-by-kill-9'), Buffer.alloc(1024));
    const running = await runProcess(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger, [
      'api',
      'worker',
      'projector',
    ]);
    try {
      expect(readdirSync(join(dataDir, 'tmp'))).to.deep.equal([]);
    } finally {
      await running.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
