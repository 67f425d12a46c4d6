import { expect } from 'chai';
import { ReadStoreUnavailableError } from '../../src/readStore/readStore.js';
import { sweepLoop } from '../../src/workers/sweepLoop.js';
import { capturedLog, LEVEL } from '../support/capturedLog.js';
import { eventually } from '../support/eventually.js';

describe('sweep loop', () => {
  it('sweeps again after a failure, saying an outage as a warning and a fault as an error', async () => {
    const { log, lines } = capturedLog();
    let sweeps = 0;
    const loop = sweepLoop({
      name: 'test',
      intervalMs: 5,
      log,
      async sweep() {
        sweeps += 1;
        if (sweeps === 1) throw new ReadStoreUnavailableError('read store down');
        if (sweeps === 2) throw new Error('a bug');
      },
    });
    loop.start();
    try {
      await eventually(async () => (sweeps >= 3 ? true : undefined), 10_000, 'a third sweep');
    } finally {
      loop.stop();
    }
    expect(lines.map((line) => [line.level, line.msg])).to.deep.equal([
      [LEVEL.warn, 'test sweep waits for its stores'],
      [LEVEL.error, 'test sweep failed'],
    ]);
  });
});
