import type { Caller } from '../commands/context.js';
import { settingsAggregate, type SettingsCommands } from '../commands/aggregates.js';
import type { SetValue, SettingName, SettingsState } from '../domain/settings/decider.js';
import { isSettingName, SETTING_NAMES, settingsDecider } from '../domain/settings/decider.js';
import type { JsonValue, SettingChange, SettingSource } from '../domain/settings/events.js';
import { ASSISTANT_SETTINGS_ID, settingsEvents } from '../domain/settings/events.js';
import { fold } from '../domain/shared/index.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { Language, ToolPolicy } from './definitions.js';
import type { ApprovalPolicy } from '../domain/action/events.js';
import { SETTING_DEFINITIONS } from './definitions.js';
import { createValidatorFactory, describeIssues, issuesOf, ValidationFailedError } from './validation.js';
import type { FieldIssue } from './validation.js';

/** What settings need to know of a tool: its name and the risk level its registry gives it. */
export interface ToolInfo {
  name: string;
  category: string;
  risk: 'low' | 'medium' | 'high';
}

/**
 * The assistant's effective settings, as the chat engine and the tools use them: every setting
 * with its default filled in, and the system prompt they make.
 */
export interface AssistantSettings {
  persona: { name: string; tone: string | null; instructions: string | null };
  language: Language;
  companyName: string | null;
  tools: {
    enabled: Record<string, boolean>;
    policy: Record<string, ToolPolicy>;
    approval: Record<string, ApprovalPolicy>;
  };
  /** Most tokens of an answer when a request names none. */
  maxTokens: number;
  /** The assistant's instructions: the product's own, then the persona, tone, language and the admin's. */
  systemPrompt: string;
}

const LANGUAGE_INSTRUCTION: Record<Language, string | null> = {
  en: 'Always answer in English, whatever the language of the question.',
  ar: 'Always answer in Arabic (العربية), whatever the language of the question.',
  auto: null,
};

/** The settings' values with defaults filled in (null where the setting has none). */
function valuesOf(state: SettingsState): Record<SettingName, JsonValue> {
  const values = {} as Record<SettingName, JsonValue>;
  for (const name of SETTING_NAMES)
    values[name] = state.values[name]?.value ?? SETTING_DEFINITIONS[name].default;
  return values;
}

/**
 * Composes the system prompt. With nothing set it is exactly `base`, so chat behaves as before any
 * setting; each setting adds a sentence after it (later instructions are the ones models follow).
 */
function systemPromptFor(settings: Omit<AssistantSettings, 'systemPrompt'>, base: string): string {
  const parts = [base];
  const { name, tone, instructions } = settings.persona;
  const company = settings.companyName;
  if (name !== SETTING_DEFINITIONS['assistant.name'].default || company) {
    parts.push(`Your name is ${name}${company ? `, and you are the assistant of ${company}` : ''}.`);
  }
  if (tone) parts.push(`Speak in this tone: ${tone}.`);
  const language = LANGUAGE_INSTRUCTION[settings.language];
  if (language) parts.push(language);
  if (instructions) parts.push(`Instructions from the administrator:\n${instructions}`);
  return parts.join('\n\n');
}

/**
 * What a tool may do under the settings: off when `tools.enabled` says false, else its entry in
 * `tools.policy`, else its risk level's default (high: confirm, otherwise auto).
 */
function policyFor(
  tool: Pick<ToolInfo, 'name' | 'risk'>,
  settings: Pick<AssistantSettings, 'tools'>,
): ToolPolicy {
  if (settings.tools.enabled[tool.name] === false) return 'disabled';
  return settings.tools.policy[tool.name] ?? (tool.risk === 'high' ? 'confirm' : 'auto');
}

/**
 * The assistant's settings: one aggregate (`settings-assistant`) that the admin CLI, the admin API and
 * onboarding change, each change checked against the setting's JSON schema first. Reads fold the
 * stream itself rather than a projection: it is short, and a change made by the CLI from another
 * process must be seen at once by a running server (as the users' credentials are). The fold is
 * kept until the stream's head moves.
 */
export function createSettings(deps: {
  commands: SettingsCommands;
  eventStore: Pick<EventStore, 'readStream'>;
  /** The tools the registry offers (setting names of tools are checked against them). */
  tools: () => readonly ToolInfo[];
  /** Most tokens of an answer by configuration (LLM_MAX_TOKENS). */
  configuredMaxTokens: number;
  /** The product's own system prompt, which settings add to. */
  baseSystemPrompt: string;
}) {
  const { commands, eventStore } = deps;
  const compile = createValidatorFactory();
  const validators = new Map(SETTING_NAMES.map((name) => [name, compile(SETTING_DEFINITIONS[name].schema)]));
  const stream = settingsAggregate.streamOf(ASSISTANT_SETTINGS_ID);
  let cached: { version: number; state: SettingsState } | null = null;

  let reading: Promise<SettingsState> | null = null;

  /** Callers at the same moment (a policy for each tool of a listing) share one read. */
  function state(): Promise<SettingsState> {
    reading ??= load().finally(() => {
      reading = null;
    });
    return reading;
  }

  /** A read begun before a write must not answer a caller after it: the next one starts afresh. */
  function afterWrite<T>(outcome: T): T {
    reading = null;
    return outcome;
  }

  async function load(): Promise<SettingsState> {
    const [head] = await eventStore.readStream(stream, { direction: 'backwards', maxCount: 1 });
    const version = head?.streamVersion ?? 0;
    if (cached?.version !== version) {
      const recorded = await eventStore.readStream(stream);
      const events = recorded.map((event) => settingsEvents.decode(event));
      cached = { version: recorded.at(-1)?.streamVersion ?? 0, state: fold(settingsDecider, events) };
    }
    return cached.state;
  }

  /** Issues of one change (`root` is how the client names the value); none when it is valid. */
  function issuesOfChange(change: SettingChange, root: string): FieldIssue[] {
    if (!isSettingName(change.name)) {
      return [{ field: root, message: `is not a setting (known: ${SETTING_NAMES.join(', ')})` }];
    }
    if (change.value === null) return [];
    const validate = validators.get(change.name)!;
    if (!validate(change.value)) return issuesOf(root, validate.errors);
    if (
      change.name === 'tools.enabled' ||
      change.name === 'tools.policy' ||
      change.name === 'tools.approval'
    ) {
      const known = new Set(deps.tools().map((tool) => tool.name));
      return Object.keys(change.value as Record<string, unknown>)
        .filter((name) => !known.has(name))
        .map((name) => ({ field: `${root}.${name}`, message: 'is not a tool' }));
    }
    return [];
  }

  function assertValid(changes: readonly SettingChange[], rootOf: (change: SettingChange) => string): void {
    const issues = changes.flatMap((change) => issuesOfChange(change, rootOf(change)));
    if (issues.length > 0)
      throw new ValidationFailedError('validation_error', describeIssues(issues), issues);
  }

  async function assistant(): Promise<AssistantSettings> {
    const values = valuesOf(await state());
    const settings = {
      persona: {
        name: values['assistant.name'] as string,
        tone: values['assistant.tone'] as string | null,
        instructions: values['assistant.instructions'] as string | null,
      },
      language: values['assistant.language'] as Language,
      companyName: values['company.name'] as string | null,
      tools: {
        enabled: values['tools.enabled'] as Record<string, boolean>,
        policy: values['tools.policy'] as Record<string, ToolPolicy>,
        approval: values['tools.approval'] as Record<string, ApprovalPolicy>,
      },
      maxTokens: (values['chat.max_tokens'] as number | null) ?? deps.configuredMaxTokens,
    };
    return { ...settings, systemPrompt: systemPromptFor(settings, deps.baseSystemPrompt) };
  }

  return {
    /**
     * The effective assistant settings: what the chat engine uses (persona and system prompt,
     * language, enabled tools and their policies, max_tokens). Always current: a change from any
     * process is seen at the next call.
     */
    assistantSettings: assistant,
    /** Each setting's value (defaults filled in) and, for those someone set, who set it, when and how. */
    async all(): Promise<{
      values: Record<SettingName, JsonValue>;
      set: Partial<Record<SettingName, SetValue>>;
    }> {
      const current = await state();
      return { values: valuesOf(current), set: current.values };
    },
    /** Every tool of the registry with what the settings allow it. */
    async toolPolicies(): Promise<Array<ToolInfo & { policy: ToolPolicy; approval: ApprovalPolicy }>> {
      const current = await assistant();
      return deps.tools().map((tool) => ({
        name: tool.name,
        category: tool.category,
        risk: tool.risk,
        policy: policyFor(tool, current),
        approval: current.tools.approval[tool.name] ?? 'self',
      }));
    },
    /** What the settings allow `tool`: run (auto), wait for confirmation (confirm), or nothing (disabled). */
    async policyOf(tool: Pick<ToolInfo, 'name' | 'risk'>): Promise<ToolPolicy> {
      return policyFor(tool, await assistant());
    },
    /** Who confirms a call of `tool` that waits for confirmation (`tools.approval`; by default its requester). */
    async approvalOf(tool: Pick<ToolInfo, 'name'>): Promise<ApprovalPolicy> {
      return (await assistant()).tools.approval[tool.name] ?? 'self';
    },
    /** Sets one setting (null: back to its default). */
    async change(name: string, value: JsonValue, source: SettingSource, caller: Caller) {
      assertValid([{ name, value }], () => name);
      return afterWrite(await commands.execute('ChangeSetting', { name, value, source }, caller));
    },
    /** Sets several settings as one event; the same `applicationId` again changes nothing. */
    async apply(applicationId: string, changes: SettingChange[], source: SettingSource, caller: Caller) {
      assertValid(changes, (change) => `settings.${change.name}`);
      return afterWrite(await commands.execute('ApplySettings', { applicationId, source, changes }, caller));
    },
  };
}

export type Settings = ReturnType<typeof createSettings>;
