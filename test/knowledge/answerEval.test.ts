import { expect } from 'chai';
import {
  evaluateAnswers,
  judge,
  loadQuestions,
  reportOf,
  type Figures,
  type Floors,
  type Report,
} from '../../eval/answers/evaluate.js';

/**
 * The answer evaluation (`npm run eval:answers`) with the embedded default, as a test: 311
 * answerable and 53 unanswerable questions over real FAQ and manual pages in English and Arabic,
 * asked through `POST /api/v1/query`. The floors sit a little under the figures measured when they
 * were set (docs/benchmarks.md), so that a change that makes answers worse fails here.
 */
const FLOORS: Floors = { keyFact: 0.69, firstCitation: 0.79, abstention: 0.88, falseAbstention: 0.11 };

describe('answer evaluation, embedded default', function () {
  this.timeout(300_000);
  let report: Report;
  before(async () => {
    report = reportOf(await evaluateAnswers({}, await loadQuestions()));
  });

  it('asks at least 150 answerable and 40 unanswerable questions, in both languages', () => {
    expect(report.all.answerable).to.be.at.least(150);
    expect(report.all.unanswerable).to.be.at.least(40);
    expect(report.ar.answerable).to.be.at.least(50);
    expect(report.ar.unanswerable).to.be.at.least(20);
  });

  it('holds its floors: key fact, first citation, abstention and false abstention', () => {
    console.log(
      `      key fact ${pct(report.all.keyFact)}, first citation ${pct(report.all.firstCitation)}, ` +
        `abstention ${pct(report.all.abstention)}, false abstention ${pct(report.all.falseAbstention)}`,
    );
    expect(judge(report.all, FLOORS)).to.equal(null);
  });

  it('answers in Arabic too: key fact and first citation above half, abstention above 80 %', () => {
    expect(report.ar.keyFact).to.be.above(0.5);
    expect(report.ar.firstCitation).to.be.above(0.5);
    expect(report.ar.abstention).to.be.above(0.8);
  });

  it('judges figures under a floor as failing, naming the measure', () => {
    const worse: Figures = { ...report.all, abstention: 0.5, falseAbstention: 0.3 };
    expect(judge(worse, FLOORS)).to.match(
      /^abstention 50\.0 % < 88\.0 %; false abstention 30\.0 % > 11\.0 %$/,
    );
  });
});

const pct = (value: number): string => `${(value * 100).toFixed(1)} %`;
