import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createMainThreadCollection } from '../../../src/parsing/worker/mainThreadCollection.js';

describe('main thread collection after large parses', () => {
  it('collects once, a delay after the last large job, when no parse is running', async () => {
    let collections = 0;
    const collection = createMainThreadCollection(
      20,
      () => false,
      () => (collections += 1),
    );
    collection.afterLargeJob();
    await sleep(10);
    collection.afterLargeJob();
    await sleep(10);
    expect(collections).to.equal(0);
    await sleep(40);
    expect(collections).to.equal(1);
  });

  it('waits while parses run, and collects once they have ended', async () => {
    let collections = 0;
    let parsing = true;
    const collection = createMainThreadCollection(
      20,
      () => parsing,
      () => (collections += 1),
    );
    collection.afterLargeJob();
    await sleep(90);
    expect(collections).to.equal(0);
    parsing = false;
    await sleep(60);
    expect(collections).to.equal(1);
  });

  it('does not collect once cancelled', async () => {
    let collections = 0;
    const collection = createMainThreadCollection(
      20,
      () => false,
      () => (collections += 1),
    );
    collection.afterLargeJob();
    collection.cancel();
    await sleep(50);
    expect(collections).to.equal(0);
  });
});
