import { expect } from 'chai';
import { createAppendSignal } from '../../src/eventStore/subscription.js';

/** Whether `promise` has settled once the queued callbacks have run. */
async function settled(promise: Promise<void>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('append signal', () => {
  const signal = () => new AbortController().signal;

  it('wakes a follower of one stream for appends to that stream, not to others', async () => {
    const appended = createAppendSignal(null);
    const seen = appended.generation();
    const waiting = appended.wait(seen, signal(), 'task-1');
    appended.notify(['task-2', 'document-9']);
    expect(await settled(waiting)).to.equal(false);
    appended.notify(['task-3', 'task-1']);
    expect(await settled(waiting)).to.equal(true);
  });

  it('wakes every follower for an append whose streams are not named (another process wrote)', async () => {
    const appended = createAppendSignal(null);
    const seen = appended.generation();
    const one = appended.wait(seen, signal(), 'task-1');
    const any = appended.wait(seen, signal());
    appended.notify();
    expect([await settled(one), await settled(any)]).to.deep.equal([true, true]);
  });

  it('wakes a follower of the whole log for every append', async () => {
    const appended = createAppendSignal(null);
    const waiting = appended.wait(appended.generation(), signal());
    appended.notify(['task-2']);
    expect(await settled(waiting)).to.equal(true);
  });

  it('does not wait when anything was appended after the follower last read', async () => {
    const appended = createAppendSignal(null);
    const seen = appended.generation();
    appended.notify(['task-2']);
    expect(await settled(appended.wait(seen, signal(), 'task-1'))).to.equal(true);
  });

  it('ends a wait on abort, and a later append to its stream finds no one left waiting', async () => {
    const appended = createAppendSignal(null);
    const controller = new AbortController();
    const waiting = appended.wait(appended.generation(), controller.signal, 'task-1');
    controller.abort();
    expect(await settled(waiting)).to.equal(true);
    const next = appended.wait(appended.generation(), signal(), 'task-1');
    appended.notify(['task-1']);
    expect(await settled(next)).to.equal(true);
  });
});
