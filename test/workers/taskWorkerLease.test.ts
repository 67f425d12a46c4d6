import { expect } from 'chai';
import type { JobType } from '../../src/workers/jobs.js';
import { startCpuLoad } from '../support/cpuLoad.js';
import { sleep } from '../support/eventually.js';
import { taskCompleted } from '../support/taskCompleted.js';
import { taskWorkerFixture } from '../support/taskWorkerFixture.js';

describe('task worker: an attempt is alive from the moment its job is taken', function () {
  this.timeout(60_000);

  it('is not superseded when starting the attempt takes longer than the claim timeout, under CPU load', async () => {
    const claimTimeoutMs = 1_000;
    let begun = 0;
    const runs: number[] = [];
    const job: JobType = {
      name: 'quick',
      maxAttempts: 3,
      async run({ attempt }) {
        runs.push(attempt);
        return { done: true };
      },
    };
    const fixture = taskWorkerFixture(job, {
      // A worker whose first step is slow (a loaded machine, a slow event store): three claim timeouts.
      tasks: (real) => ({
        ...real,
        async execute(type, data, caller) {
          if (type === 'BeginAttempt') {
            begun += 1;
            await sleep(3 * claimTimeoutMs);
          }
          return real.execute(type, data, caller);
        },
      }),
      worker: { claimTimeoutMs },
    });
    const workers = ['w1', 'w2'].map((workerId) => fixture.newWorker(workerId));
    const load = startCpuLoad(2);
    try {
      workers.forEach((worker) => worker.start());
      const taskId = await fixture.submit();
      const events = await taskCompleted(fixture.eventStore, taskId, 30_000);
      expect(events.map((event) => event.type)).to.deep.equal([
        'TaskCreated',
        'TaskStarted',
        'TaskCompleted',
      ]);
      expect(runs).to.deep.equal([1]);
      // The job was never delivered again: its delivery was renewed while the attempt was starting.
      expect(begun).to.equal(1);
    } finally {
      load.stop();
      await Promise.all(workers.map((worker) => worker.stop()));
      await fixture.close();
    }
  });
});
