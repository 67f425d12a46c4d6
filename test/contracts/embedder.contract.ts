import { expect } from 'chai';
import type { Embedder } from '../../src/models/embedder.js';

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

/**
 * What every Embedder adapter must do. `embedder` is called in a `before` hook with its context (so a
 * suite can skip itself there when its server is missing) and its result shared by the tests.
 */
export function embedderContract(
  name: string,
  embedder: (context: Mocha.Context) => Embedder | Promise<Embedder>,
): void {
  describe(`Embedder contract: ${name}`, function () {
    this.timeout(60_000);
    let model: Embedder;
    before(async function () {
      model = await embedder(this);
    });

    it('has a name, and a space short and safe enough to key a collection and a cache', () => {
      expect(model.name).to.be.a('string').and.not.equal('');
      expect(model.space).to.match(/^[A-Za-z0-9_-]{1,40}$/);
      expect(model.dimensions).to.be.a('number').greaterThan(0);
      expect(model.maxBatch).to.be.a('number').greaterThan(0);
    });

    it('gives one unit vector of its dimensions per text, in order, the same one for the same text', async () => {
      const texts = [
        'The river flooded the valley.',
        'Bread rises in a warm oven.',
        'The river flooded the valley.',
      ];
      const vectors = await model.embed(texts, { kind: 'passage' });
      expect(vectors).to.have.length(3);
      for (const vector of vectors) {
        expect(vector).to.be.instanceOf(Float32Array).with.length(model.dimensions);
        expect(dot(vector, vector)).to.be.closeTo(1, 1e-3);
      }
      expect(dot(vectors[0]!, vectors[2]!)).to.be.closeTo(1, 1e-4);
      const [alone] = await model.embed([texts[1]!], { kind: 'passage' });
      expect(dot(alone!, vectors[1]!)).to.be.closeTo(1, 1e-3);
    });

    it('puts a query nearer a passage about it than an unrelated one', async () => {
      const [flood, bread] = await model.embed(
        [
          'Heavy rain made the river flood the valley and the farms.',
          'Bread rises in a warm oven before baking.',
        ],
        { kind: 'passage' },
      );
      const [query] = await model.embed(['river flood in the valley'], { kind: 'query' });
      expect(dot(query!, flood!)).to.be.greaterThan(dot(query!, bread!));
    });

    it('embeds nothing into nothing', async () => {
      expect(await model.embed([], { kind: 'query' })).to.deep.equal([]);
    });

    it('refuses to work for a caller that has given up', async () => {
      let failed = false;
      await model.embed(['too late'], { kind: 'query', signal: AbortSignal.abort() }).catch(() => {
        failed = true;
      });
      expect(failed).to.equal(true);
    });

    it('is ready', async () => {
      expect((await model.probe()).healthy).to.equal(true);
    });
  });
}
