import { expect } from 'chai';
import { FeatureCounts } from '../../src/models/featureCounts.js';

/** Deterministic signed 32-bit values standing for feature hashes (a linear congruential sequence). */
function hashes(count: number, seed: number): number[] {
  const out: number[] = [];
  let state = seed >>> 0;
  for (let i = 0; i < count; i += 1) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    out.push(state | 0);
  }
  return out;
}

function drained(counts: FeatureCounts): Map<number, { weight: number; count: number }> {
  const seen = new Map<number, { weight: number; count: number }>();
  counts.drain((hash, weight, count) => seen.set(hash, { weight, count }));
  return seen;
}

describe('FeatureCounts', () => {
  it('counts each hash with the weight it was first added with', () => {
    const counts = new FeatureCounts();
    counts.add(7, 1);
    counts.add(9, 0.25);
    counts.add(7, 0.6);
    counts.add(7, 1);
    expect([...drained(counts)]).to.deep.equal([
      [7, { weight: 1, count: 3 }],
      [9, { weight: 0.25, count: 1 }],
    ]);
  });

  it('keeps every count when a text has more distinct features than the table first holds', () => {
    const counts = new FeatureCounts();
    const distinct = hashes(10_000, 42);
    const expected = new Map<number, number>();
    for (const [i, hash] of distinct.entries()) {
      const times = 1 + (i % 3);
      for (let k = 0; k < times; k += 1) counts.add(hash, 0.5);
      expected.set(hash, (expected.get(hash) ?? 0) + times);
    }
    const seen = drained(counts);
    expect(seen.size).to.equal(expected.size);
    for (const [hash, count] of expected) expect(seen.get(hash)).to.deep.equal({ weight: 0.5, count });
  });

  it('starts empty again after a drain, after growing too', () => {
    const counts = new FeatureCounts();
    for (const hash of hashes(5_000, 1)) counts.add(hash, 1);
    drained(counts);
    counts.add(123, 1);
    counts.add(123, 1);
    expect([...drained(counts)]).to.deep.equal([[123, { weight: 1, count: 2 }]]);
    expect(drained(counts).size).to.equal(0);
  });
});
