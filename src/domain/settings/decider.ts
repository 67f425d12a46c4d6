import type { Decider, EventDraft } from '../shared/index.js';
import { RuleViolationError } from '../shared/index.js';
import { deepEqual } from '../shared/deepEqual.js';
import type { SettingsCommand } from './commands.js';
import type { JsonValue, SettingChange, SettingSource, SettingsEvent } from './events.js';

/** Names of the settings the aggregate holds (their schemas and defaults live in src/settings). */
export const SETTING_NAMES = [
  'assistant.name',
  'assistant.tone',
  'assistant.instructions',
  'assistant.language',
  'company.name',
  'tools.enabled',
  'tools.policy',
  'tools.approval',
  'chat.max_tokens',
] as const;
export type SettingName = (typeof SETTING_NAMES)[number];

export const isSettingName = (name: string): name is SettingName =>
  (SETTING_NAMES as readonly string[]).includes(name);

/** A setting someone set: its value and who, when and how. Unset settings have their default. */
export interface SetValue {
  value: JsonValue;
  changedBy: string;
  changedAt: string;
  source: SettingSource;
}

export interface SettingsState {
  values: Partial<Record<SettingName, SetValue>>;
  /** Applications (onboarding sessions) already applied: applying one again is nothing to do. */
  applied: string[];
}

type Draft = EventDraft<SettingsEvent>;

function assertNames(changes: readonly SettingChange[]): void {
  for (const { name } of changes) {
    if (!isSettingName(name)) throw new RuleViolationError('unknown_setting', `No setting named ${name}`);
  }
}

function decide(command: SettingsCommand, state: SettingsState): Draft[] {
  switch (command.type) {
    case 'ChangeSetting': {
      const { name, value, source } = command.data;
      assertNames([command.data]);
      const current = state.values[name as SettingName];
      // Setting what is already there (or resetting what is unset) changes nothing.
      if (current ? deepEqual(current.value, value) : value === null) return [];
      return [{ type: 'SettingChanged', data: { name, value, source } }];
    }
    case 'ApplySettings': {
      const { applicationId, source, changes } = command.data;
      if (state.applied.includes(applicationId)) return [];
      assertNames(changes);
      return [{ type: 'SettingsApplied', data: { applicationId, source, changes } }];
    }
  }
}

function withChange(
  values: SettingsState['values'],
  change: SettingChange,
  how: Omit<SetValue, 'value'>,
): SettingsState['values'] {
  // Names outside today's list (a setting since retired) are facts of the past: kept out of the state.
  if (!isSettingName(change.name)) return values;
  const next = { ...values };
  if (change.value === null) delete next[change.name];
  else next[change.name] = { value: change.value, ...how };
  return next;
}

function evolve(state: SettingsState, event: SettingsEvent): SettingsState {
  const how = { changedBy: event.metadata.actorId, changedAt: event.metadata.now };
  switch (event.type) {
    case 'SettingChanged':
      return {
        ...state,
        values: withChange(state.values, event.data, { ...how, source: event.data.source }),
      };
    case 'SettingsApplied': {
      let values = state.values;
      for (const change of event.data.changes) {
        values = withChange(values, change, { ...how, source: event.data.source });
      }
      return { values, applied: [...state.applied, event.data.applicationId] };
    }
  }
  return state;
}

export const settingsDecider: Decider<SettingsCommand, SettingsEvent, SettingsState> = {
  decide,
  evolve,
  initialState: () => ({ values: {}, applied: [] }),
};
