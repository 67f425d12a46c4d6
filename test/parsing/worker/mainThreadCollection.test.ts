import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createMainThreadCollection } from '../../../src/parsing/worker/mainThreadCollection.js';
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
