import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createLocalBus } from '../../src/bus/localBus.js';
import { subjectMatches } from '../../src/bus/bus.js';
import { busContract } from '../contracts/bus.contract.js';

busContract('local (memory)', async () => {
  const bus = createLocalBus();
  return { bus, dispose: () => bus.close() };
});

busContract('local (file)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'archivist-bus-'));
  const bus = createLocalBus({ path: join(dir, 'bus.db') });
  return {
    bus,
    dispose: async () => {
      await bus.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('local bus with a file', () => {
  it('keeps queued jobs across a restart and redelivers the job that was in flight', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'archivist-bus-restart-'));
    const path = join(dir, 'bus.db');
    const first = createLocalBus({ path });
    await first.enqueue('work', { id: 'in-flight', payload: { n: 1 } });
    let started!: () => void;
    const hasStarted = new Promise<void>((resolve) => (started = resolve));
    first.consume('work', () => {
      started();
      return new Promise(() => {}); // never finishes: the process "dies" mid-job
    });
    await hasStarted;
    await first.enqueue('work', { id: 'queued', payload: { n: 2 } });
    // Simulate the crash: drop the bus without settling (close() would wait for the handler).
    void first.close();

    const second = createLocalBus({ path });
    const seen: Array<[string, number]> = [];
    const consumer = second.consume('work', async (delivery) => {
      seen.push([delivery.id, delivery.deliveryCount]);
    });
    const deadline = Date.now() + 3_000;
    while (seen.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.sort()).to.deep.equal([
      ['in-flight', 2],
      ['queued', 1],
    ]);
    await consumer.stop();
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('subject matching', () => {
  it('follows NATS wildcard rules', () => {
    expect(subjectMatches('a.*.c', 'a.b.c')).to.equal(true);
    expect(subjectMatches('a.*', 'a.b.c')).to.equal(false);
    expect(subjectMatches('a.>', 'a.b.c')).to.equal(true);
    expect(subjectMatches('a.>', 'a')).to.equal(false);
    expect(subjectMatches('a.b', 'a.b')).to.equal(true);
    expect(subjectMatches('a.b', 'a.b.c')).to.equal(false);
  });
});
