import { defineSettings, integer } from '../configuration/variable.js';

const ACTION_EXPIRY_MINUTES = integer('ACTION_EXPIRY_MINUTES', {
  default: '60',
  min: 1,
  max: 525_600,
  meaning:
    'How long a pending action (a high-risk tool call of the Assistant API) waits for its owner to confirm or reject it; after that it has expired and cannot be confirmed.',
});
const RATE_LIMIT_TOOLS_PER_MINUTE = integer('RATE_LIMIT_TOOLS_PER_MINUTE', {
  default: '50',
  min: 1,
  max: 1_000_000,
  meaning:
    'Tool executions (`execute_tool`, `confirm_action`) each Assistant API user may request in any 60 seconds.',
});

/** How long a call waiting for confirmation stays confirmable, and how often a user may call tools. */
export const toolSettings = defineSettings([ACTION_EXPIRY_MINUTES, RATE_LIMIT_TOOLS_PER_MINUTE], (env) => ({
  /** How long a pending action waits for its owner's decision before it expires. */
  actionExpiryMs: ACTION_EXPIRY_MINUTES.read(env) * 60_000,
  /** Tool executions per minute of each user (`execute_tool`, `confirm_action`). */
  rateLimitToolsPerMinute: RATE_LIMIT_TOOLS_PER_MINUTE.read(env),
}));
