import { expect } from 'chai';
import { evaluateCorpus, totals, type DocumentResult, type Totals } from '../../../eval/parsing/evaluate.js';

export type Floors = Omit<Totals, 'documents' | 'failed' | 'ocrCer' | 'arabicOcrCer' | 'maxArabicOcrCer'>;
export type Ceilings = Pick<Totals, 'ocrCer' | 'arabicOcrCer' | 'maxArabicOcrCer'>;

/**
 * A document corpus as a test: every document parses, and the scores stay at the level reached,
 * less a small margin for OCR's run-to-run noise. Raise the floors when the pipeline gets better;
 * never lower them to pass.
 */
export function describeCorpusScores(
  title: string,
  options: { corpus?: URL; minDocuments: number; floors: Floors; ceilings: Ceilings },
): void {
  describe(title, function () {
    this.timeout(180_000);
    let results: DocumentResult[] = [];
    let total: Totals;

    before(async () => {
      results = await evaluateCorpus(options.corpus ? { corpus: options.corpus } : {});
      total = totals(results);
    });

    it(`has at least ${options.minDocuments} documents and parses every one`, () => {
      expect(results.length).to.be.at.least(options.minDocuments);
      expect(
        results.filter((result) => result.error).map((result) => `${result.entry.id}: ${result.error}`),
      ).to.deep.equal([]);
    });

    for (const [measure, floor] of Object.entries(options.floors)) {
      it(`${measure} stays at or above ${floor}`, () => {
        expect(total[measure as keyof Floors]).to.be.at.least(floor);
      });
    }

    for (const [measure, ceiling] of Object.entries(options.ceilings)) {
      it(`${measure} stays at or below ${ceiling}`, () => {
        expect(total[measure as keyof Ceilings]).to.be.at.most(ceiling);
      });
    }
  });
}
