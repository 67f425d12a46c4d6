/**
 * "Wake me when the position moves": waiters of a follower's progress. Each wait is bounded, and a
 * bound short enough that progress made elsewhere (another process, read through `reached`) is
 * noticed without a notification.
 */
export function createPositionWaiters() {
  const waiters = new Set<() => void>();
  return {
    notify(): void {
      for (const wake of [...waiters]) wake();
    },
    /**
     * Resolves true once `reached()` holds, false after `timeoutMs` or once `stopped()` holds.
     * `pollMs` bounds each wait between looks.
     */
    async until(
      reached: () => boolean | Promise<boolean>,
      timeoutMs: number,
      options: { pollMs?: number; stopped?: () => boolean } = {},
    ): Promise<boolean> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (await reached()) return true;
        const left = deadline - Date.now();
        if (left <= 0 || options.stopped?.()) return false;
        await new Promise<void>((resolve) => {
          const wake = (): void => {
            waiters.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, Math.min(left, options.pollMs ?? 25));
          waiters.add(wake);
        });
      }
    },
  };
}
