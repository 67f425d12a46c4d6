import { expect } from 'chai';
import { evaluateCorpus, totals, type DocumentResult, type Totals } from '../../../eval/parsing/evaluate.js';

/**
 * The real-document corpus (test/corpus/real, `npm run eval:parsing`) as a test: every document
 * parses, and the scores stay at the level reached (docs/benchmarks.md), less a small margin for
 * OCR's run-to-run noise. Raise these when the pipeline gets better; never lower them to pass.
 */
const FLOORS: Omit<Totals, 'documents' | 'failed' | 'ocrCer' | 'arabicOcrCer' | 'maxArabicOcrCer'> = {
  headingRecall: 0.8,
  headingPrecision: 0.87,
  headingLevelAccuracy: 0.87,
  tableCountAccuracy: 0.93,
  cellRecall: 0.88,
  textRecall: 0.94,
  noiseRemoved: 0.85,
};
const CEILINGS = { ocrCer: 0.07, arabicOcrCer: 0.09, maxArabicOcrCer: 0.15 };

describe('real-document corpus (test/corpus/real)', function () {
  this.timeout(120_000);
  let results: DocumentResult[] = [];
  let total: Totals;

  before(async () => {
    results = await evaluateCorpus();
    total = totals(results);
  });

  it('has at least 40 documents and parses every one', () => {
    expect(results.length).to.be.at.least(40);
    expect(
      results.filter((result) => result.error).map((result) => `${result.entry.id}: ${result.error}`),
    ).to.deep.equal([]);
  });

  for (const [measure, floor] of Object.entries(FLOORS)) {
    it(`${measure} stays at or above ${floor}`, () => {
      expect(total[measure as keyof typeof FLOORS]).to.be.at.least(floor);
    });
  }

  for (const [measure, ceiling] of Object.entries(CEILINGS)) {
    it(`${measure} stays at or below ${ceiling}`, () => {
      expect(total[measure as keyof typeof CEILINGS]).to.be.at.most(ceiling);
    });
  }
});
