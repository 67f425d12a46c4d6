import { defineSettings, integer } from '../configuration/variable.js';

const TASK_HEARTBEAT_MS = integer('TASK_HEARTBEAT_MS', {
  default: '10000',
  min: 50,
  max: 3_600_000,
  meaning: 'How often a running task shows its worker is alive.',
});
const TASK_STALL_TIMEOUT_MS = integer('TASK_STALL_TIMEOUT_MS', {
  default: '300000',
  min: 1_000,
  max: 86_400_000,
  meaning:
    'A running task with no recorded step for this long is failed by the watchdog if no live worker holds its lease.',
});
const TASK_CLAIM_TIMEOUT_MS = integer('TASK_CLAIM_TIMEOUT_MS', {
  default: '(3 × TASK_HEARTBEAT_MS: 30000)',
  min: 100,
  max: 86_400_000,
  meaning:
    'A worker that has not renewed its liveness heartbeat (every TASK_HEARTBEAT_MS) for this long is presumed dead: another worker takes over its tasks and the uploads it had claimed.',
});

/** How workers show they are alive, and when a silent one's tasks are taken over or failed. */
export const taskSettings = defineSettings(
  [TASK_HEARTBEAT_MS, TASK_STALL_TIMEOUT_MS, TASK_CLAIM_TIMEOUT_MS],
  (env) => {
    const taskHeartbeatMs = TASK_HEARTBEAT_MS.read(env);
    return {
      taskHeartbeatMs,
      taskStallTimeoutMs: TASK_STALL_TIMEOUT_MS.read(env),
      /** A worker whose liveness heartbeat is older than this is dead: its claims are taken over. */
      taskClaimTimeoutMs: TASK_CLAIM_TIMEOUT_MS.read(env, 3 * taskHeartbeatMs),
    };
  },
);
