import type { JobType } from '../../src/workers/jobs.js';
import { sleep } from './testApp.js';

/** Runs `input.steps` steps of `input.stepMs`, reporting progress after each; returns how many ran. */
export const stepsJob: JobType = {
  name: 'steps',
  async run({ input, progress, resumeFrom }) {
    const steps = Number(input['steps'] ?? 3);
    const stepMs = Number(input['stepMs'] ?? 10);
    const first = Math.round(resumeFrom * steps);
    for (let step = first + 1; step <= steps; step += 1) {
      await sleep(stepMs);
      await progress(step / steps, `step ${step} of ${steps}`);
    }
    return { steps, resumedAt: first };
  },
};

export const explodingJob: JobType = {
  name: 'explode',
  async run({ progress }) {
    await progress(0.25, 'about to fail');
    throw new Error('the input was unreadable');
  },
};

/** Why each run of the `wait` job ended (the abort reason), by task id. */
export const waitEnds = new Map<string, string>();

/** Waits, doing nothing, until its signal aborts (cancellation, timeout). */
export const waitingJob: JobType = {
  name: 'wait',
  timeoutMs: 2_000,
  run: ({ signal, taskId }) =>
    new Promise((_, reject) => {
      signal.addEventListener(
        'abort',
        () => {
          const reason = signal.reason as Error;
          waitEnds.set(taskId, `${reason.name}: ${reason.message}`);
          reject(reason);
        },
        { once: true },
      );
    }),
};

/** What a run of the `tracked` job did, for tests that must see the job itself stop. */
export interface TrackedRun {
  /** Steps the job ran (it runs until stopped). */
  steps: number;
  /** Settles when the run ends, with how it ended. */
  ended: Promise<'returned' | string>;
}

export const trackedRuns = new Map<string, TrackedRun[]>();

/**
 * Runs steps of `input.stepMs` (default 20) until stopped, recording each step; `ended` resolves
 * with the error that stopped it (its name and message). Never completes on its own.
 */
export const trackedJob: JobType = {
  name: 'tracked',
  timeoutMs: 30_000,
  run(context) {
    let end!: (how: string) => void;
    const run: TrackedRun = { steps: 0, ended: new Promise((resolve) => (end = resolve)) };
    trackedRuns.set(context.taskId, [...(trackedRuns.get(context.taskId) ?? []), run]);
    const stepMs = Number(context.input['stepMs'] ?? 20);
    return (async () => {
      try {
        for (;;) {
          await sleep(stepMs);
          run.steps += 1;
          await context.progress(Math.min(0.99, run.steps / 1000), `step ${run.steps}`);
        }
      } catch (error) {
        const reason = context.signal.aborted ? context.signal.reason : error;
        end(reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason));
        throw error;
      }
    })();
  },
};
