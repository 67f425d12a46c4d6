import { expect } from 'chai';
import type { Reranker } from '../../src/models/reranker.js';

/** What every Reranker adapter must do. `reranker` is called in a `before` hook. */
export function rerankerContract(
  name: string,
  reranker: (context: Mocha.Context) => Reranker | Promise<Reranker>,
): void {
  describe(`Reranker contract: ${name}`, () => {
    let model: Reranker;
    before(async function () {
      model = await reranker(this);
    });

    it('scores each passage, in the passages’ order, the one answering the query highest', async () => {
      const passages = [
        'Bread rises in a warm oven.',
        'The library opens at ten on Saturdays and closes at four.',
        'Saturdays are busy at the market.',
      ];
      const scores = await model.rerank('when does the library open on saturdays', passages);
      expect(scores).to.have.length(3);
      for (const score of scores) expect(score).to.be.a('number').and.satisfy(Number.isFinite);
      expect(scores.indexOf(Math.max(...scores))).to.equal(1);
    });

    it('scores nothing as nothing', async () => {
      expect(await model.rerank('anything', [])).to.deep.equal([]);
    });

    it('is named and ready', async () => {
      expect(model.name).to.be.a('string').and.not.equal('');
      expect((await model.probe()).healthy).to.equal(true);
    });
  });
}
