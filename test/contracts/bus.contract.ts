import { expect } from 'chai';
import type { Bus, DeadLetter, Delivery, Notification } from '../../src/bus/bus.js';
import { deadLetterSubject } from '../../src/bus/bus.js';
import { eventually as eventuallyWithin, sleep } from '../support/eventually.js';

export interface BusFixture {
  bus: Bus;
  dispose(): Promise<void>;
}

let queueCounter = 0;
/** A fresh queue per test, so suites also work against a shared server. */
const newQueue = (): string => `test_${process.pid}_${Date.now()}_${(queueCounter += 1)}`;
const eventually = <T>(probe: () => T | undefined): Promise<T> => eventuallyWithin(probe, 5_000);

/** The Bus port's semantics; every adapter must pass it unchanged. */
export function busContract(adapter: string, create: () => Promise<BusFixture>): void {
  describe(`Bus contract: ${adapter}`, function () {
    this.timeout(30_000);
    let fixture: BusFixture;
    let bus: Bus;
    beforeEach(async () => {
      fixture = await create();
      bus = fixture.bus;
    });
    afterEach(async () => fixture.dispose());

    describe('work queues', () => {
      it('delivers an enqueued job once with its payload; an acked job does not come back', async () => {
        const queue = newQueue();
        const seen: Delivery[] = [];
        const consumer = bus.consume(
          queue,
          async (delivery) => {
            seen.push(delivery);
            await delivery.ack();
          },
          { ackWaitMs: 300 },
        );
        await bus.enqueue(queue, { id: 'job-1', payload: { text: 'héllo', n: 1 } });
        await eventually(() => (seen.length === 1 ? true : undefined));
        await sleep(700);
        expect(seen).to.have.length(1);
        expect(seen[0]!.id).to.equal('job-1');
        expect(seen[0]!.payload).to.deep.equal({ text: 'héllo', n: 1 });
        expect(seen[0]!.deliveryCount).to.equal(1);
        await consumer.stop();
      });

      it('keeps jobs enqueued before anyone consumes', async () => {
        const queue = newQueue();
        for (let i = 0; i < 5; i += 1) await bus.enqueue(queue, { id: `early-${i}`, payload: { i } });
        const seen: number[] = [];
        const consumer = bus.consume(queue, async (delivery) => {
          seen.push(delivery.payload['i'] as number);
        });
        await eventually(() => (seen.length === 5 ? true : undefined));
        expect([...seen].sort()).to.deep.equal([0, 1, 2, 3, 4]);
        await consumer.stop();
      });

      it('stores a job id once for good: again while queued, or after it was done, it is ignored', async () => {
        const queue = newQueue();
        expect(await bus.enqueue(queue, { id: 'same', payload: { v: 1 } })).to.equal(true);
        expect(await bus.enqueue(queue, { id: 'same', payload: { v: 2 } })).to.equal(false);
        const seen: unknown[] = [];
        const consumer = bus.consume(queue, async (delivery) => {
          seen.push(delivery.payload);
        });
        await eventually(() => (seen.length >= 1 ? true : undefined));
        await consumer.stop();
        expect(await bus.enqueue(queue, { id: 'same', payload: { v: 3 } })).to.equal(false);
        // Another id on the same queue, and the same id on another queue, are new jobs.
        expect(await bus.enqueue(queue, { id: 'other', payload: { v: 4 } })).to.equal(true);
        expect(await bus.enqueue(newQueue(), { id: 'same', payload: { v: 5 } })).to.equal(true);
        const again = bus.consume(queue, async (delivery) => {
          seen.push(delivery.payload);
        });
        await eventually(() => (seen.length >= 2 ? true : undefined));
        expect(seen).to.deep.equal([{ v: 1 }, { v: 4 }]);
        await again.stop();
      });

      it('redelivers after nak with a delay, counting deliveries', async () => {
        const queue = newQueue();
        const times: Array<{ count: number; at: number }> = [];
        const consumer = bus.consume(queue, async (delivery) => {
          times.push({ count: delivery.deliveryCount, at: Date.now() });
          if (delivery.deliveryCount === 1) await delivery.nak(400);
          else await delivery.ack();
        });
        await bus.enqueue(queue, { id: 'retry', payload: {} });
        await eventually(() => (times.length === 2 ? true : undefined));
        expect(times.map((t) => t.count)).to.deep.equal([1, 2]);
        expect(times[1]!.at - times[0]!.at).to.be.at.least(350);
        await consumer.stop();
      });

      it('redelivers a job whose handler threw, after the retry delay', async () => {
        const queue = newQueue();
        let calls = 0;
        const consumer = bus.consume(
          queue,
          async () => {
            calls += 1;
            if (calls === 1) throw new Error('transient');
          },
          { retryDelaysMs: [50] },
        );
        await bus.enqueue(queue, { id: 'throws', payload: {} });
        await eventually(() => (calls === 2 ? true : undefined));
        await consumer.stop();
      });

      it('redelivers a job that was neither settled nor extended within the ack wait', async () => {
        const queue = newQueue();
        const counts: number[] = [];
        let redelivered: () => void = () => undefined;
        const second = new Promise<void>((resolve) => (redelivered = resolve));
        const consumer = bus.consume(
          queue,
          async (delivery) => {
            counts.push(delivery.deliveryCount);
            // The first delivery outlives its lease: it settles only once the job came again.
            if (delivery.deliveryCount === 1) await second;
            else redelivered();
          },
          { ackWaitMs: 400, concurrency: 2 },
        );
        await bus.enqueue(queue, { id: 'slow', payload: {} });
        await eventually(() => (counts.length === 2 ? true : undefined));
        expect(counts).to.deep.equal([1, 2]);
        await consumer.stop();
      });

      it('does not redeliver while the handler reports it is still working', async () => {
        const queue = newQueue();
        const counts: number[] = [];
        let finished!: () => void;
        const handled = new Promise<void>((resolve) => (finished = resolve));
        const consumer = bus.consume(
          queue,
          async (delivery) => {
            counts.push(delivery.deliveryCount);
            // Three lease lengths of work: a redelivery would arrive while this handler still runs.
            for (let i = 0; i < 8; i += 1) {
              await sleep(150);
              await delivery.working();
            }
            await delivery.ack();
            finished();
          },
          { ackWaitMs: 400, concurrency: 2 },
        );
        await bus.enqueue(queue, { id: 'long', payload: {} });
        await handled;
        expect(counts).to.deep.equal([1]);
        await consumer.stop();
      });

      it('dead-letters a job after its maximum deliveries and announces it', async () => {
        const queue = newQueue();
        const announced: Notification[] = [];
        const unsubscribe = bus.subscribe(deadLetterSubject(queue), (message) => announced.push(message));
        let calls = 0;
        const consumer = bus.consume(
          queue,
          async (delivery) => {
            calls += 1;
            await delivery.nak(10);
          },
          { maxDeliveries: 3 },
        );
        await bus.enqueue(queue, { id: 'doomed', payload: { file: 'a.pdf' } });
        const [letter] = await eventually(() => (announced.length > 0 ? announced : undefined));
        await sleep(200);
        expect(calls).to.equal(3);
        expect(letter!.payload).to.include({ queue, id: 'doomed', deliveries: 3, reason: 'max_deliveries' });
        const stored = await bus.deadLetters(queue);
        expect(stored.map((d: DeadLetter) => [d.id, d.reason, d.deliveries])).to.deep.equal([
          ['doomed', 'max_deliveries', 3],
        ]);
        expect(stored[0]!.payload).to.deep.equal({ file: 'a.pdf' });
        unsubscribe();
        await consumer.stop();
      });

      it('never redelivers a terminated job and records why', async () => {
        const queue = newQueue();
        let calls = 0;
        const consumer = bus.consume(queue, async (delivery) => {
          calls += 1;
          await delivery.term('unknown job type');
        });
        await bus.enqueue(queue, { id: 'bad', payload: {} });
        await eventually(() => (calls === 1 ? true : undefined));
        await sleep(300);
        expect(calls).to.equal(1);
        const [letter] = await bus.deadLetters(queue);
        expect(letter).to.include({
          id: 'bad',
          reason: 'terminated',
          detail: 'unknown job type',
          deliveries: 1,
        });
        await consumer.stop();
      });

      it('shares a queue between competing consumers: each job handled exactly once', async () => {
        const queue = newQueue();
        const handled: string[] = [];
        const handler = async (delivery: Delivery): Promise<void> => {
          await sleep(5);
          handled.push(delivery.id);
        };
        const consumers = [bus.consume(queue, handler), bus.consume(queue, handler, { concurrency: 3 })];
        for (let i = 0; i < 40; i += 1) await bus.enqueue(queue, { id: `job-${i}`, payload: {} });
        await eventually(() => (handled.length >= 40 ? true : undefined));
        await sleep(200);
        expect([...handled].sort()).to.deep.equal(Array.from({ length: 40 }, (_, i) => `job-${i}`).sort());
        await Promise.all(consumers.map((c) => c.stop()));
      });

      it('runs at most `concurrency` handlers at once', async () => {
        const queue = newQueue();
        let running = 0;
        let peak = 0;
        let done = 0;
        const consumer = bus.consume(
          queue,
          async () => {
            running += 1;
            peak = Math.max(peak, running);
            await sleep(30);
            running -= 1;
            done += 1;
          },
          { concurrency: 3 },
        );
        for (let i = 0; i < 12; i += 1) await bus.enqueue(queue, { id: `c-${i}`, payload: {} });
        await eventually(() => (done === 12 ? true : undefined));
        expect(peak).to.equal(3);
        await consumer.stop();
      });

      it('lets handlers running at stop finish, and takes no new jobs after', async () => {
        const queue = newQueue();
        let finished = 0;
        let started = 0;
        const consumer = bus.consume(queue, async () => {
          started += 1;
          await sleep(200);
          finished += 1;
        });
        await bus.enqueue(queue, { id: 'first', payload: {} });
        await eventually(() => (started === 1 ? true : undefined));
        await consumer.stop();
        expect(finished).to.equal(1);
        await bus.enqueue(queue, { id: 'second', payload: {} });
        await sleep(200);
        expect(started).to.equal(1);
      });
    });

    describe('notifications', () => {
      it('publishes to subscribers whose pattern matches, with * and > wildcards', async () => {
        const prefix = newQueue();
        const star: string[] = [];
        const rest: string[] = [];
        const exact: string[] = [];
        const offStar = bus.subscribe(`${prefix}.task.*`, (m) => star.push(m.subject));
        const offRest = bus.subscribe(`${prefix}.>`, (m) => rest.push(m.subject));
        const offExact = bus.subscribe(`${prefix}.task.b`, (m) => exact.push(String(m.payload['n'])));
        await sleep(100);
        bus.publish(`${prefix}.task.a`, { n: 1 });
        bus.publish(`${prefix}.task.b`, { n: 2 });
        bus.publish(`${prefix}.task.a.deep`, { n: 3 });
        await eventually(() =>
          rest.length === 3 && star.length === 2 && exact.length === 1 ? true : undefined,
        );
        expect(star).to.deep.equal([`${prefix}.task.a`, `${prefix}.task.b`]);
        expect(exact).to.deep.equal(['2']);
        offStar();
        bus.publish(`${prefix}.task.c`, { n: 4 });
        await eventually(() => (rest.length === 4 ? true : undefined));
        expect(star).to.have.length(2);
        offRest();
        offExact();
      });
    });

    it('reports itself healthy while open', async () => {
      expect(await bus.health()).to.deep.equal({ healthy: true, reason: null });
    });
  });
}
