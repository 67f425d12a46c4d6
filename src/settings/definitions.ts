import type { SettingName } from '../domain/settings/decider.js';
import type { JsonValue } from '../domain/settings/events.js';
import { APPROVAL_POLICIES } from '../domain/action/events.js';

export const LANGUAGES = ['en', 'ar', 'auto'] as const;
export type Language = (typeof LANGUAGES)[number];

/** What a tool call may do: run at once, wait for its owner's confirmation, or not exist. */
export const TOOL_POLICIES = ['auto', 'confirm', 'disabled'] as const;
export type ToolPolicy = (typeof TOOL_POLICIES)[number];

export interface SettingDefinition {
  description: string;
  /** JSON schema of a value (null, which resets to the default, is always accepted besides). */
  schema: Record<string, unknown>;
  /** The value while nobody has set one (null: the configuration decides, or nothing). */
  default: JsonValue;
  /** Whether get_config may show it to any user. */
  clientSafe: boolean;
}

const TOOL_NAME_PATTERN = '^[a-z][a-z0-9_]{0,63}$';

/** Every setting of the assistant: its schema (checked with ajv before a change is recorded) and default. */
export const SETTING_DEFINITIONS: Readonly<Record<SettingName, SettingDefinition>> = {
  'assistant.name': {
    description: "The assistant's name, as it introduces itself",
    schema: { type: 'string', minLength: 1, maxLength: 80, pattern: '\\S' },
    default: 'Archivist',
    clientSafe: true,
  },
  'assistant.tone': {
    description: 'How the assistant speaks (e.g. "friendly and brief"), added to its system prompt',
    schema: { type: 'string', minLength: 1, maxLength: 200 },
    default: null,
    clientSafe: false,
  },
  'assistant.instructions': {
    description: "The administrator's instructions, added to the assistant's system prompt",
    schema: { type: 'string', minLength: 1, maxLength: 4_000 },
    default: null,
    clientSafe: false,
  },
  'assistant.language': {
    description: 'The language the assistant answers in: en, ar, or auto (the language of the question)',
    schema: { enum: [...LANGUAGES] },
    default: 'auto',
    clientSafe: true,
  },
  'company.name': {
    description: 'The organisation the assistant works for',
    schema: { type: 'string', minLength: 1, maxLength: 200 },
    default: null,
    clientSafe: true,
  },
  'tools.enabled': {
    description: 'Tools switched on (true) or off (false) by name; a tool not named is on',
    schema: {
      type: 'object',
      propertyNames: { pattern: TOOL_NAME_PATTERN },
      additionalProperties: { type: 'boolean' },
    },
    default: {},
    clientSafe: false,
  },
  'tools.policy': {
    description:
      "Per tool: auto (runs at once), confirm (waits for its owner's confirmation) or disabled; a tool not named follows its risk level (high: confirm, else auto)",
    schema: {
      type: 'object',
      propertyNames: { pattern: TOOL_NAME_PATTERN },
      additionalProperties: { enum: [...TOOL_POLICIES] },
    },
    default: {},
    clientSafe: false,
  },
  'tools.approval': {
    description:
      'Per tool: who confirms a call that waits for confirmation: self (its requester), admin (an administrator) or other_user (any user but its requester); a tool not named: self',
    schema: {
      type: 'object',
      propertyNames: { pattern: TOOL_NAME_PATTERN },
      additionalProperties: { enum: [...APPROVAL_POLICIES] },
    },
    default: {},
    clientSafe: false,
  },
  'chat.max_tokens': {
    description: 'Most tokens a chat answer may take when the request names none (null: LLM_MAX_TOKENS)',
    schema: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    default: null,
    clientSafe: true,
  },
};
