import { expect } from 'chai';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { Bus, Delivery, Notification } from '../../src/bus/bus.js';
import { BusUnavailableError, deadLetterSubject } from '../../src/bus/bus.js';
import { createNatsBus } from '../../src/bus/natsBus.js';
import { natsNames } from '../../src/bus/natsNames.js';
import { busContract } from '../contracts/bus.contract.js';
import { expectRejection } from '../support/expectRejection.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { eventually, sleep } from '../support/eventually.js';

/** Enqueues, retrying while the bus reconnects (what a caller does with BusUnavailableError). */
async function enqueueWhenBack(bus: Bus, queue: string, id: string): Promise<void> {
  await eventually(async () => {
    try {
      await bus.enqueue(queue, { id, payload: { id } });
      return true;
    } catch (error) {
      if (error instanceof BusUnavailableError) return undefined;
      throw error;
    }
  });
}

let counter = 0;
const unique = (what: string): string => `${what}_${process.pid}_${Date.now()}_${(counter += 1)}`;

describe('NATS bus against a real nats-server', function () {
  this.timeout(60_000);
  let server: NatsServerHandle | null = null;
  const open: Bus[] = [];
  const newBus = (prefix?: string, on: NatsServerHandle | null = server): Bus => {
    const bus = createNatsBus({ url: on!.url, ...(prefix ? { prefix } : {}) });
    open.push(bus);
    return bus;
  };

  before(async function () {
    server = await startNatsServer(); // prints why when it returns null
    if (!server) this.skip();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((bus) => bus.close()));
  });
  after(async () => {
    await server?.dispose();
  });

  busContract('nats', async () => {
    // A prefix of its own: with NATS_URL the contract may run against a server that others use.
    const bus = createNatsBus({ url: server!.url, prefix: 'archivist_contract' });
    return { bus, dispose: () => bus.close() };
  });

  // Outage tests need a server they may stop: the shared one when it is ours, else one of their own.
  let own: NatsServerHandle | null = null;
  async function requireControl(context: Mocha.Context): Promise<NatsServerHandle> {
    if (server?.controllable) return server;
    own ??= await startNatsServer({ own: true });
    if (own?.controllable) return own;
    console.log(
      'skipped: the server given by NATS_URL cannot be stopped by tests, and there is no nats-server binary',
    );
    return context.skip();
  }
  after(async () => {
    await own?.dispose();
  });

  it('keeps enqueued jobs across a server restart', async function () {
    const target = await requireControl(this);
    const bus = newBus(unique('restart'), target);
    for (let i = 0; i < 3; i += 1) await bus.enqueue('work', { id: `job-${i}`, payload: { i } });
    await target.restart();
    const seen: string[] = [];
    const consumer = bus.consume('work', async (delivery) => {
      seen.push(delivery.id);
    });
    await eventually(() => (seen.length === 3 ? true : undefined));
    await sleep(300);
    expect([...seen].sort()).to.deep.equal(['job-0', 'job-1', 'job-2']);
    await consumer.stop();
  });

  it('keeps consuming after the server restarts under a running consumer, without redoing acked work', async function () {
    const target = await requireControl(this);
    const bus = newBus(unique('resume'), target);
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const consumer = bus.consume(
      'work',
      async (delivery) => {
        seen.push(delivery.id);
        if (delivery.id === 'in-flight') await gate; // still running while the server restarts
      },
      { concurrency: 2, ackWaitMs: 3_000 },
    );
    await bus.enqueue('work', { id: 'before', payload: {} });
    await bus.enqueue('work', { id: 'in-flight', payload: {} });
    await eventually(() => (seen.length === 2 ? true : undefined));
    await target.restart();
    await enqueueWhenBack(bus, 'work', 'after');
    await eventually(() => (seen.includes('after') ? true : undefined));
    release(); // settles (acks) after the restart
    await sleep(3_500); // longer than the lease: an unconfirmed ack would show as a redelivery
    expect([...seen].sort()).to.deep.equal(['after', 'before', 'in-flight']);
    await consumer.stop();
  });

  it('reports the outage in health, fails calls fast, and recovers when the server is back', async function () {
    const target = await requireControl(this);
    const bus = newBus(unique('outage'), target);
    const heard: Notification[] = [];
    bus.subscribe('outage.>', (message) => heard.push(message));
    expect(await bus.health()).to.deep.equal({ healthy: true, reason: null });
    await target.stop();
    try {
      const health = await eventually(async () => {
        const current = await bus.health();
        return current.healthy ? undefined : current;
      });
      expect(health.reason).to.include(target.url);
      const started = Date.now();
      const error = await expectRejection(bus.enqueue('work', { id: 'x', payload: {} }), BusUnavailableError);
      expect(error.message).to.include(target.url);
      expect(Date.now() - started).to.be.below(3_000);
      await expectRejection(bus.deadLetters('work'), BusUnavailableError);
      expect(() => bus.publish('outage.lost', { n: 0 })).not.to.throw();
    } finally {
      await target.restart();
    }
    await eventually(async () => ((await bus.health()).healthy ? true : undefined));
    bus.publish('outage.back', { n: 1 });
    await eventually(() => (heard.length === 1 ? true : undefined));
    expect(heard[0]).to.deep.equal({ subject: 'outage.back', payload: { n: 1 } });
  });

  it('starts while the server is down and connects when it comes up', async function () {
    const target = await requireControl(this);
    await target.stop();
    let bus: Bus;
    try {
      bus = newBus(unique('late'), target);
      const health = await bus.health();
      expect(health.healthy).to.equal(false);
      expect(health.reason).to.include('cannot reach NATS');
    } finally {
      await target.restart();
    }
    const seen: string[] = [];
    const consumer = bus.consume('work', async (delivery) => {
      seen.push(delivery.id);
    });
    await enqueueWhenBack(bus, 'work', 'first');
    await eventually(() => (seen.length === 1 ? true : undefined));
    await consumer.stop();
  });

  it('shares a queue between two bus instances (two processes): each job handled once', async () => {
    const prefix = unique('shared');
    const [one, two] = [newBus(prefix), newBus(prefix)];
    const handledBy: Record<string, string[]> = { one: [], two: [] };
    const handler =
      (who: 'one' | 'two') =>
      async (delivery: Delivery): Promise<void> => {
        // Work that lasts (60 jobs × 25 ms on two slots ≈ 0.75 s): at 5 ms the first consumer could
        // finish the queue before the second one's first pull on a loaded machine (a red CI run).
        await sleep(25);
        handledBy[who]!.push(delivery.id);
      };
    const consumers = [
      one!.consume('work', handler('one'), { concurrency: 2 }),
      two!.consume('work', handler('two'), { concurrency: 2 }),
    ];
    for (let i = 0; i < 60; i += 1) await one!.enqueue('work', { id: `job-${i}`, payload: {} });
    await eventually(() => (handledBy['one']!.length + handledBy['two']!.length >= 60 ? true : undefined));
    await sleep(300);
    const all = [...handledBy['one']!, ...handledBy['two']!].sort();
    expect(all).to.deep.equal(Array.from({ length: 60 }, (_, i) => `job-${i}`).sort());
    expect(handledBy['one']!.length).to.be.above(0);
    expect(handledBy['two']!.length).to.be.above(0);
    await Promise.all(consumers.map((consumer) => consumer.stop()));
  });

  it('records a dead letter once, and announces it once, with two instances hearing the advisory', async () => {
    const prefix = unique('dead');
    const [one, two] = [newBus(prefix), newBus(prefix)];
    await Promise.all([one!.health(), two!.health()]); // both listen to the advisory
    const heard: Record<string, number> = { one: 0, two: 0 };
    one!.subscribe(deadLetterSubject('work'), () => (heard['one']! += 1));
    two!.subscribe(deadLetterSubject('work'), () => (heard['two']! += 1));
    const consumer = one!.consume('work', (delivery) => delivery.nak(10), { maxDeliveries: 2 });
    await one!.enqueue('work', { id: 'doomed', payload: { n: 1 } });
    await one!.enqueue('work', { id: 'refused', payload: { n: 2 } });
    await eventually(() => (heard['one']! >= 2 ? true : undefined));
    await sleep(500);
    expect(heard).to.deep.equal({ one: 2, two: 2 });
    const letters = await two!.deadLetters('work');
    expect(letters.map((letter) => [letter.id, letter.deliveries, letter.reason])).to.have.deep.members([
      ['doomed', 2, 'max_deliveries'],
      ['refused', 2, 'max_deliveries'],
    ]);
    expect(await one!.deadLetters('work', { limit: 1 })).to.have.length(1);
    await consumer.stop();
    expect(await messagesLeft(server!.url, prefix, 'work')).to.equal(0);
  });

  it('takes terminated jobs off the work queue', async () => {
    const prefix = unique('term');
    const bus = newBus(prefix);
    const consumer = bus.consume('tasks.ingest', (delivery) => delivery.term('not for us'));
    await bus.enqueue('tasks.ingest', { id: 'bad', payload: {} });
    const [letter] = await eventually(async () => {
      const letters = await bus.deadLetters('tasks.ingest');
      return letters.length > 0 ? letters : undefined;
    });
    expect(letter).to.include({ id: 'bad', reason: 'terminated', detail: 'not for us', deliveries: 1 });
    await consumer.stop();
    expect(await messagesLeft(server!.url, prefix, 'tasks.ingest')).to.equal(0);
  });
});

describe('NATS bus names', () => {
  it('gives each queue its own consumer name, dots and underscores escaped', () => {
    const names = natsNames('archivist');
    expect(names.consumerName('tasks.ingest')).to.equal('tasks_2Eingest');
    expect(names.consumerName('tasks_2Eingest')).to.equal('tasks_5F2Eingest');
    expect(names.jobsStream).to.equal('ARCHIVIST_JOBS');
    expect(() => names.jobSubject('bad queue')).to.throw(/invalid queue name/);
    expect(() => names.jobSubject('a.*')).to.throw(/invalid queue name/);
  });
});

/** Messages of `queue` still stored in the jobs stream, read with a connection of its own. */
async function messagesLeft(url: string, prefix: string, queue: string): Promise<number> {
  const names = natsNames(prefix);
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    const subject = names.jobSubject(queue);
    const info = await jsm.streams.info(names.jobsStream, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  } finally {
    await nc.close();
  }
}
