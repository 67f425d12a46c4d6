import type { Logger } from '../log.js';
import { isServiceUnavailable } from '../unavailable.js';

/** A periodic sweep, started and stopped. */
export interface SweepLoop {
  start(): void;
  stop(): void;
}

/**
 * Runs `sweep` soon after `start` (within a second) and then `intervalMs` after each sweep ends, until
 * `stop`. A sweep that fails is said once and the next one tries again: a store that cannot serve is
 * an outage (a warning), anything else a fault (an error).
 */
export function sweepLoop(options: {
  sweep: () => Promise<unknown>;
  intervalMs: number;
  log: Logger;
  /** What sweeps, for the log: `conversation purge`, `task watchdog`. */
  name: string;
}): SweepLoop {
  const { sweep, intervalMs, log, name } = options;
  let timer: NodeJS.Timeout | null = null;
  const tick = (): void => {
    sweep()
      .catch((error: unknown) => {
        if (isServiceUnavailable(error)) log.warn({ err: error }, `${name} sweep waits for its stores`);
        else log.error({ err: error }, `${name} sweep failed`);
      })
      .finally(() => {
        if (timer) timer = setTimeout(tick, intervalMs).unref();
      });
  };
  return {
    start(): void {
      timer = setTimeout(tick, Math.min(intervalMs, 1_000)).unref();
    },
    stop(): void {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
