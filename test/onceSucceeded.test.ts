import { expect } from 'chai';
import { onceSucceeded } from '../src/onceSucceeded.js';

describe('onceSucceeded', () => {
  it('runs once for every caller, waiting or later, while the run succeeds', async () => {
    let runs = 0;
    const declare = onceSucceeded(async () => {
      runs += 1;
      await Promise.resolve();
      return `declared ${runs}`;
    });
    expect(await Promise.all([declare(), declare(), declare()])).to.deep.equal([
      'declared 1',
      'declared 1',
      'declared 1',
    ]);
    expect(await declare()).to.equal('declared 1');
    expect(runs).to.equal(1);
  });

  it('hands a failure to the callers that waited for it, then runs again on the next call', async () => {
    let runs = 0;
    const declare = onceSucceeded(async () => {
      runs += 1;
      await Promise.resolve();
      if (runs === 1) throw new Error('server down');
      return runs;
    });
    const waited = await Promise.allSettled([declare(), declare()]);
    expect(waited.map((outcome) => outcome.status)).to.deep.equal(['rejected', 'rejected']);
    expect(await declare()).to.equal(2);
    expect(await declare()).to.equal(2);
    expect(runs).to.equal(2);
  });
});
