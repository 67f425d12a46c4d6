import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { INGESTION_STAGES, type StageReport } from '../../src/knowledge/ingest.js';
import { taskProgressOf } from '../../src/knowledge/ingestJobs.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const caller = { actorId: 'tester', correlationId: 'stages' };

describe('the ingestion pipeline’s stages', function () {
  this.timeout(60_000);
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => app.stop());

  it('reports each stage in order, every page of a PDF, and progress that only grows, with the timings', async () => {
    const bytes = await readFile(new URL('../fixtures/documents/pdf/report.pdf', import.meta.url));
    const reports: StageReport[] = [];
    const outcome = await app.runtime.knowledge.ingest({
      fileName: 'report.pdf',
      bytes,
      source: `general/report-${Date.now()}.pdf`,
      sourceKind: 'upload',
      section: 'general',
      skipDuplicates: false,
      caller,
      signal: AbortSignal.timeout(55_000),
      onProgress: async (report) => {
        reports.push(report);
      },
    });
    expect(outcome).to.include({ success: true });

    const order = Object.keys(INGESTION_STAGES);
    const stagesSeen = reports.map((report) => report.stage).filter((stage, i, all) => stage !== all[i - 1]);
    expect(stagesSeen).to.deep.equal(order.filter((stage) => stage !== 'receive'));

    const pages = reports.filter((report) => report.stage === 'parse' && report.detail.startsWith('page '));
    const total = Number(/of (\d+)$/.exec(pages[0]!.detail)![1]);
    expect(total).to.be.greaterThan(1);
    expect(pages.map((report) => report.detail)).to.deep.equal(
      Array.from({ length: total }, (_, i) => `page ${i + 1} of ${total}`),
    );

    const progress = reports.map((report) => report.progress);
    expect(progress.every((value, i) => i === 0 || value >= progress[i - 1]!)).to.equal(true);
    expect(progress[0]).to.be.greaterThan(0);
    expect(progress.at(-1)).to.equal(INGESTION_STAGES.index);
    expect(Object.keys(outcome.timings).sort()).to.deep.equal(
      ['detect', 'parse', 'clean', 'chunk', 'claim', 'embed', 'index'].sort(),
    );
    expect(Object.values(outcome.timings).every((ms) => typeof ms === 'number' && ms >= 0)).to.equal(true);
  });

  it('records no progress for a quick ingestion, then at most every half second, naming the stage', async () => {
    const recorded: Array<[number, string | undefined]> = [];
    let now = 1_000;
    const report = taskProgressOf(
      async (fraction, message) => {
        recorded.push([fraction, message]);
      },
      (share) => share / 2,
      () => now,
    );
    await report({ stage: 'receive', progress: 0.02, detail: '10 bytes' });
    now += 499;
    await report({ stage: 'parse', progress: 0.2, detail: 'page 1 of 3' });
    now += 1;
    await report({ stage: 'parse', progress: 0.4, detail: 'page 2 of 3' });
    now += 499;
    await report({ stage: 'parse', progress: 0.5, detail: 'page 3 of 3' });
    now += 1;
    await report({ stage: 'chunk', progress: 0.7, detail: '12 chunks' });
    expect(recorded).to.deep.equal([
      [0.2, 'parse: page 2 of 3'],
      [0.35, 'chunk: 12 chunks'],
    ]);
  });
});
