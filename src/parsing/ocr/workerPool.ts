import { abortError } from '../abort.js';

export interface PoolOptions<R> {
  /** Most resources alive at once (starting, busy or idle). */
  size: number;
  /** An idle resource is destroyed after this long unused. */
  idleMs: number;
  create(): Promise<R>;
  destroy(resource: R): Promise<void>;
  /** The error waiters get when the pool is closed under them. */
  closedError(): Error;
}

/** Exclusive use of one resource until `release` (healthy) or `discard` (busy elsewhere or broken). */
export interface Lease<R> {
  resource: R;
  release(): void;
  discard(): void;
}

export interface PoolStats {
  /** Resources alive or starting. */
  size: number;
  idle: number;
  busy: number;
  starting: number;
  /** Callers waiting for a resource. */
  waiting: number;
}

export interface Pool<R> {
  /** Waits for a resource (FIFO); rejects with the signal's `ParseError` when it aborts while waiting. */
  acquire(signal: AbortSignal): Promise<Lease<R>>;
  stats(): PoolStats;
  /** Rejects waiters, destroys every resource (busy and starting ones too), refuses new work. */
  close(): Promise<void>;
}

interface Waiter<R> {
  resolve(lease: Lease<R>): void;
  reject(error: Error): void;
  signal: AbortSignal;
  onAbort(): void;
  settled: boolean;
}

/**
 * A lazily filled pool: nothing is created until the first `acquire`, resources are created on
 * demand up to `size`, and each one goes away after `idleMs` without work. Idle timers are unref'd so
 * an idle pool never keeps the process alive.
 */
export function createPool<R>(options: PoolOptions<R>): Pool<R> {
  const live = new Set<R>();
  const idle: Array<{ resource: R; timer: NodeJS.Timeout }> = [];
  const waiters: Array<Waiter<R>> = [];
  /** Waiters whose resource is being created for them (no longer queued, not yet served). */
  const spawning = new Set<Waiter<R>>();
  /** Creations in flight, so `close()` can wait for them and destroy what they produce. */
  const creations = new Set<Promise<void>>();
  let starting = 0;
  let closed = false;

  const destroyQuietly = (resource: R): Promise<void> => options.destroy(resource).catch(() => undefined);

  const settle = (waiter: Waiter<R>): boolean => {
    if (waiter.settled) return false;
    waiter.settled = true;
    waiter.signal.removeEventListener('abort', waiter.onAbort);
    return true;
  };

  const lease = (resource: R): Lease<R> => {
    let done = false;
    return {
      resource,
      release: () => {
        if (done) return;
        done = true;
        if (live.has(resource)) putBack(resource);
      },
      discard: () => {
        if (done) return;
        done = true;
        if (live.delete(resource)) void destroyQuietly(resource);
        pump();
      },
    };
  };

  const putBack = (resource: R): void => {
    if (closed) return;
    const waiter = waiters.shift();
    if (waiter && settle(waiter)) {
      waiter.resolve(lease(resource));
      return;
    }
    const timer = setTimeout(() => {
      const at = idle.findIndex((entry) => entry.resource === resource);
      if (at >= 0) idle.splice(at, 1);
      if (live.delete(resource)) void destroyQuietly(resource);
    }, options.idleMs);
    timer.unref();
    idle.push({ resource, timer });
  };

  const spawn = (waiter: Waiter<R>): void => {
    starting += 1;
    spawning.add(waiter);
    const creation: Promise<void> = options.create().then(
      (resource) => {
        starting -= 1;
        spawning.delete(waiter);
        creations.delete(creation);
        if (closed) return destroyQuietly(resource);
        live.add(resource);
        // A waiter that gave up while this was starting leaves the resource to the next one.
        if (settle(waiter)) waiter.resolve(lease(resource));
        else putBack(resource);
      },
      (error: unknown) => {
        starting -= 1;
        spawning.delete(waiter);
        creations.delete(creation);
        if (settle(waiter)) waiter.reject(error instanceof Error ? error : new Error(String(error)));
        pump();
      },
    );
    creations.add(creation);
  };

  const pump = (): void => {
    while (!closed && waiters.length > 0) {
      const entry = idle.pop();
      if (entry) {
        clearTimeout(entry.timer);
        const waiter = waiters.shift();
        if (waiter && settle(waiter)) waiter.resolve(lease(entry.resource));
        else putBack(entry.resource);
        continue;
      }
      if (live.size + starting >= options.size) return;
      const waiter = waiters.shift();
      if (waiter) spawn(waiter);
    }
  };

  return {
    acquire: (signal) =>
      new Promise<Lease<R>>((resolve, reject) => {
        if (closed) return reject(options.closedError());
        if (signal.aborted) return reject(abortError(signal));
        const waiter: Waiter<R> = {
          resolve,
          reject,
          signal,
          settled: false,
          onAbort: () => {
            const at = waiters.indexOf(waiter);
            if (at >= 0) waiters.splice(at, 1);
            if (settle(waiter)) reject(abortError(signal));
          },
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
        waiters.push(waiter);
        pump();
      }),
    stats: () => ({
      size: live.size + starting,
      idle: idle.length,
      busy: live.size - idle.length,
      starting,
      waiting: waiters.length,
    }),
    close: async () => {
      closed = true;
      for (const waiter of [...waiters.splice(0), ...spawning]) {
        if (settle(waiter)) waiter.reject(options.closedError());
      }
      for (const entry of idle.splice(0)) clearTimeout(entry.timer);
      const all = [...live];
      live.clear();
      await Promise.all([...all.map(destroyQuietly), ...creations]);
    },
  };
}
