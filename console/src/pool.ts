/**
 * Runs at most `limit` jobs at a time, the rest in the order they came. A browser opens six
 * connections per server, and each upload holds one for its task's event stream until the task
 * ends: a folder of hundreds of files must not take them all.
 */
export function createPool(limit: number): (job: () => Promise<void>) => void {
  let running = 0;
  const waiting: Array<() => Promise<void>> = [];
  const pump = (): void => {
    while (running < limit && waiting.length > 0) {
      const job = waiting.shift()!;
      running += 1;
      void job()
        .catch(() => undefined)
        .finally(() => {
          running -= 1;
          pump();
        });
    }
  };
  return (job) => {
    waiting.push(job);
    pump();
  };
}
