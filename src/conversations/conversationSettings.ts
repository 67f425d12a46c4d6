import { defineSettings, integer } from '../configuration/variable.js';

const DAY_MS = 86_400_000;

const CHAT_MAX_TOOL_ROUNDS = integer('CHAT_MAX_TOOL_ROUNDS', {
  default: '4',
  min: 0,
  max: 20,
  meaning: 'Model rounds of one chat turn that may call tools; the next round must answer.',
});
const CHAT_TURN_TIMEOUT_MS = integer('CHAT_TURN_TIMEOUT_MS', {
  default: '300000',
  min: 1_000,
  max: 3_600_000,
  meaning:
    'The longest one chat turn (model rounds and tool calls) may run; it then ends with an `error` (504 for chat_with_tools).',
});
const CONVERSATION_PURGE_AFTER_DAYS = integer('CONVERSATION_PURGE_AFTER_DAYS', {
  default: '30',
  min: 0,
  max: 36_500,
  meaning:
    'A deleted conversation (`delete_conversation`) can be restored for this many days; then it is purged: its events, messages and search entries are removed from every store.',
});
const CONVERSATION_PURGE_INTERVAL_MS = integer('CONVERSATION_PURGE_INTERVAL_MS', {
  default: '3600000',
  min: 1_000,
  max: 86_400_000,
  meaning:
    'How often a worker (one at a time, under a lease) looks for deleted conversations due for purging.',
});
const RATE_LIMIT_CHAT_PER_MINUTE = integer('RATE_LIMIT_CHAT_PER_MINUTE', {
  default: '100',
  min: 1,
  max: 1_000_000,
  meaning:
    'Requests each Assistant API user may make to the chat and conversation endpoints in any 60 seconds (a sliding window; 429 with `Retry-After` above). Shared by every API process with BUS=nats.',
});

/** Chat turns, and how long a deleted conversation stays restorable. */
export const conversationSettings = defineSettings(
  [
    CHAT_MAX_TOOL_ROUNDS,
    CHAT_TURN_TIMEOUT_MS,
    CONVERSATION_PURGE_AFTER_DAYS,
    CONVERSATION_PURGE_INTERVAL_MS,
    RATE_LIMIT_CHAT_PER_MINUTE,
  ],
  (env) => ({
    chatMaxToolRounds: CHAT_MAX_TOOL_ROUNDS.read(env),
    chatTurnTimeoutMs: CHAT_TURN_TIMEOUT_MS.read(env),
    /** A soft-deleted conversation is purged this long after its deletion. */
    conversationPurgeAfterMs: CONVERSATION_PURGE_AFTER_DAYS.read(env) * DAY_MS,
    /** How often a worker looks for deleted conversations due for purging. */
    conversationPurgeIntervalMs: CONVERSATION_PURGE_INTERVAL_MS.read(env),
    /** Requests per minute of each user to the chat and conversation endpoints. */
    rateLimitChatPerMinute: RATE_LIMIT_CHAT_PER_MINUTE.read(env),
  }),
);
