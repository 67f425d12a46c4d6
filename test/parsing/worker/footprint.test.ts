import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { expect } from 'chai';
import { createFootprintTracker, heapFootprint } from '../../../src/parsing/worker/footprint.js';

const MB = 1024 * 1024;

describe('a parse worker’s footprint', () => {
  it('counts the heap and external memory, but not the young generation', () => {
    const spaces = [
      { space_name: 'new_space', space_size: 32 * MB },
      { space_name: 'old_space', space_size: 90 * MB },
    ];
    expect(heapFootprint({ total_heap_size: 140 * MB, external_memory: 6 * MB }, spaces)).to.equal(114 * MB);
    // This thread's own figures: the young generation is part of the heap, so less than both together.
    const heap = getHeapStatistics();
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!;
    expect(young.space_size).to.be.greaterThan(0);
    expect(heapFootprint()).to.be.within(
      // (with room for what this thread allocates or collects between the two readings)
      heap.total_heap_size - young.space_size - 8 * MB,
      heap.total_heap_size + heap.external_memory + 8 * MB,
    );
  });

  it('collects only once the footprint is well above the last collected one, and reports that one until then', () => {
    // What the worker measures after each job: garbage piles up, a collection gives it back.
    const measured = [100, 110, 125, 131, 145, 96, 120].map((mb) => mb * MB);
    let collections = 0;
    const tracker = createFootprintTracker({
      collectAboveBytes: 32 * MB,
      measure: () => measured.shift()!,
      collect: () => {
        collections += 1;
      },
    });
    expect(tracker.afterJob() / MB).to.equal(110); // the first job: collected (100 → 110 after)
    expect(collections).to.equal(1);
    expect(tracker.afterJob() / MB).to.equal(110); // 125: garbage on top of what was left
    expect(tracker.afterJob() / MB).to.equal(110); // 131
    expect(collections).to.equal(1);
    expect(tracker.afterJob() / MB).to.equal(96); // 145: 35 MB above, collected to 96
    expect(collections).to.equal(2);
    expect(tracker.afterJob() / MB).to.equal(96); // 120
  });
});
