import type { Command } from '../shared/index.js';
import type { SettingChange, SettingSource } from './events.js';

/** Values must be validated against the setting's schema before: the decider knows names, not schemas. */
export type ChangeSetting = Command<'ChangeSetting', SettingChange & { source: SettingSource }>;
export type ApplySettings = Command<
  'ApplySettings',
  { applicationId: string; source: SettingSource; changes: SettingChange[] }
>;

export type SettingsCommand = ChangeSetting | ApplySettings;
