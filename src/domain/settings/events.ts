import type { Event } from '../shared/index.js';
import { defineEvents } from '../shared/index.js';

/** A JSON value as events store it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Where a change came from: the admin CLI, an executed onboarding session, or the admin API. */
export type SettingSource = 'cli' | 'onboarding' | 'api';

export type SettingChange = {
  name: string;
  /** The new value; null returns the setting to its default. */
  value: JsonValue;
};

/** One setting changed (the CLI's `settings set`). Who changed it is the event's `actorId`. */
export type SettingChanged = Event<'SettingChanged', SettingChange & { source: SettingSource }>;

/**
 * Several settings changed together, as one decision: an onboarding session's configuration or an
 * admin's update. `applicationId` (the onboarding session's id) makes applying it again harmless.
 */
export type SettingsApplied = Event<
  'SettingsApplied',
  { applicationId: string; source: SettingSource; changes: SettingChange[] }
>;

export type SettingsEvent = SettingChanged | SettingsApplied;

export const settingsEvents = defineEvents<SettingsEvent>({
  SettingChanged: {},
  SettingsApplied: {},
});

/** The assistant's settings are one aggregate: one short stream, `settings-assistant`. */
export const ASSISTANT_SETTINGS_ID = 'assistant';
