import { PoolBusyError } from './poolBusyError.js';

/**
 * The admission side of the parse pool: a first-in, first-out queue of jobs, each carrying the
 * memory it is estimated to need, and the process-wide budget they reserve from. The head of the
 * queue starts only when its reservation fits, and nothing overtakes it, so a large document waits
 * its turn instead of starving behind a stream of small ones.
 */
export interface MemoryBudget<T extends { cost: number }> {
  /** Bytes all running jobs may reserve together. */
  readonly capacity: number;
  /** Bytes reserved by running jobs. */
  readonly reserved: number;
  /** Jobs waiting. */
  readonly waiting: number;
  /** Queues a job; `PoolBusyError` when the queue is full. */
  enqueue(item: T): void;
  /** Takes a job out of the queue without starting it (it was aborted or waited too long). */
  remove(item: T): boolean;
  /** The head of the queue with its cost reserved, when it fits in what is left; otherwise null. */
  takeNext(): T | null;
  /** Puts a job taken by `takeNext` back at the head of the queue (its reservation already given back). */
  requeue(item: T): void;
  /** Gives back a finished job's reservation. */
  release(cost: number): void;
  /** Empties the queue (shutting down); returns what was waiting. */
  drain(): T[];
}

export function createMemoryBudget<T extends { cost: number }>(options: {
  capacity: number;
  maxQueue: number;
}): MemoryBudget<T> {
  const queue: T[] = [];
  let reserved = 0;
  return {
    capacity: options.capacity,
    get reserved() {
      return reserved;
    },
    get waiting() {
      return queue.length;
    },
    enqueue(item) {
      if (queue.length >= options.maxQueue) {
        throw new PoolBusyError(`${queue.length} documents are waiting to be parsed`);
      }
      queue.push(item);
    },
    remove(item) {
      const index = queue.indexOf(item);
      if (index === -1) return false;
      queue.splice(index, 1);
      return true;
    },
    takeNext() {
      const head = queue[0];
      // A job costing more than the whole budget never gets here (it is refused on arrival), so
      // the head always starts once the jobs before it have finished.
      if (!head || reserved + head.cost > options.capacity) return null;
      queue.shift();
      reserved += head.cost;
      return head;
    },
    requeue(item) {
      queue.unshift(item);
    },
    release(cost) {
      reserved = Math.max(0, reserved - cost);
    },
    drain() {
      return queue.splice(0);
    },
  };
}
