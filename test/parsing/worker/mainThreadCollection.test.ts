import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import {
  collectionOnGrowth,
  createMainThreadCollection,
} from '../../../src/parsing/worker/mainThreadCollection.js';
import { eventually } from '../../support/eventually.js';

/** A collection with a 20 ms delay that counts the full collections it would run. */
function counted(parsing: () => boolean = () => false) {
  const runs = { count: 0 };
  const collection = createMainThreadCollection(20, parsing, () => (runs.count += 1));
  return { runs, collection };
}

describe('main thread collection after large parses', () => {
  it('collects once, a delay after the last of several large jobs, when no parse is running', async () => {
    const { runs, collection } = counted();
    collection.afterLargeJob();
    collection.afterLargeJob();
    expect(runs.count).to.equal(0);
    await eventually(async () => (runs.count > 0 ? true : undefined), 2_000, 'a collection');
    await sleep(100);
    expect(runs.count).to.equal(1);
  });

  it('waits while parses run, and collects once they have ended', async () => {
    let parsing = true;
    const { runs, collection } = counted(() => parsing);
    collection.afterLargeJob();
    // Several delays go by: none collects while a parse runs, however slow the machine.
    await sleep(150);
    expect(runs.count).to.equal(0);
    parsing = false;
    await eventually(async () => (runs.count > 0 ? true : undefined), 2_000, 'a collection');
    expect(runs.count).to.equal(1);
  });

  it('does not collect once cancelled', async () => {
    const { runs, collection } = counted();
    collection.afterLargeJob();
    collection.cancel();
    await sleep(100);
    expect(runs.count).to.equal(0);
  });
});

describe('a collection at once after a large held job', () => {
  it('collects only when the heap has grown by the threshold over the least it was seen at', () => {
    let used = 100;
    const runs: number[] = [];
    const collect = collectionOnGrowth(
      64,
      () => {
        runs.push(used);
        used = 90;
      },
      () => used,
    );
    used = 150; // 50 over the start: a large estimate that left little
    expect(collect()).to.equal(false);
    used = 80; // V8 collected on its own: growth now counts from here
    expect(collect()).to.equal(false);
    used = 150; // 70 over the least seen
    expect(collect()).to.equal(true);
    expect(runs).to.deep.equal([150]);
    used = 120; // 30 over what the collection left
    expect(collect()).to.equal(false);
  });
});
