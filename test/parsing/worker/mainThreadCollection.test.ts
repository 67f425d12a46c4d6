import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createMainThreadCollection } from '../../../src/parsing/worker/mainThreadCollection.js';

/** A collection with a 20 ms delay that counts the full collections it would run. */
function counted(parsing: () => boolean = () => false) {
  const runs = { count: 0 };
  const collection = createMainThreadCollection(20, parsing, () => (runs.count += 1));
  return { runs, collection };
}

describe('main thread collection after large parses', () => {
  it('collects once, a delay after the last large job, when no parse is running', async () => {
    const { runs, collection } = counted();
    collection.afterLargeJob();
    await sleep(10);
    collection.afterLargeJob();
    await sleep(10);
    expect(runs.count).to.equal(0);
    await sleep(40);
    expect(runs.count).to.equal(1);
  });

  it('waits while parses run, and collects once they have ended', async () => {
    let parsing = true;
    const { runs, collection } = counted(() => parsing);
    collection.afterLargeJob();
    await sleep(90);
    expect(runs.count).to.equal(0);
    parsing = false;
    await sleep(60);
    expect(runs.count).to.equal(1);
  });

  it('does not collect once cancelled', async () => {
    const { runs, collection } = counted();
    collection.afterLargeJob();
    collection.cancel();
    await sleep(50);
    expect(runs.count).to.equal(0);
  });
});
