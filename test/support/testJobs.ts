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

/** Waits, doing nothing, until its signal aborts (cancellation, timeout). */
export const waitingJob: JobType = {
  name: 'wait',
  timeoutMs: 2_000,
  run: ({ signal }) =>
    new Promise((_, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    }),
};
