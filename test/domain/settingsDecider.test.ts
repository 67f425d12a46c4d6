import type { SettingsCommand } from '../../src/domain/settings/commands.js';
import { settingsDecider } from '../../src/domain/settings/decider.js';
import { fold } from '../../src/domain/shared/index.js';
import { spec } from '../../src/domain/shared/deciderSpec.js';
import type { SettingsApplied, SettingsEvent } from '../../src/domain/settings/events.js';
import { expect } from 'chai';

const metadata = { now: '2026-11-26T10:00:00.000Z', actorId: 'cli:ops', correlationId: 'c1' };
const command = <T extends SettingsCommand['type']>(
  type: T,
  data: Extract<SettingsCommand, { type: T }>['data'],
): SettingsCommand => ({ type, data, metadata }) as SettingsCommand;

const named = {
  type: 'SettingChanged',
  data: { name: 'assistant.name', value: 'Aria', source: 'cli' },
} as const;
const applied: Omit<SettingsApplied, 'metadata'> = {
  type: 'SettingsApplied',
  data: {
    applicationId: 'session-1',
    source: 'onboarding',
    changes: [
      { name: 'assistant.language', value: 'ar' },
      { name: 'company.name', value: 'Acme' },
    ],
  },
};

describe('settings decider', () => {
  const settings = spec(settingsDecider);

  it('records a change; setting the value already there, or resetting an unset one, is nothing to do', () => {
    settings
      .given([])
      .when(command('ChangeSetting', { name: 'assistant.name', value: 'Aria', source: 'cli' }))
      .then([named]);
    settings
      .given([named])
      .when(command('ChangeSetting', { name: 'assistant.name', value: 'Aria', source: 'api' }))
      .then([]);
    settings
      .given([])
      .when(command('ChangeSetting', { name: 'company.name', value: null, source: 'cli' }))
      .then([]);
    settings
      .given([])
      .when(command('ChangeSetting', { name: 'assistant.colour', value: 'blue', source: 'cli' }))
      .thenThrows('unknown_setting');
  });

  it('applies several settings as one event, once per application id', () => {
    settings.given([]).when(command('ApplySettings', applied.data)).then([applied]);
    settings.given([applied]).when(command('ApplySettings', applied.data)).then([]);
    settings
      .given([])
      .when(
        command('ApplySettings', {
          applicationId: 'x',
          source: 'api',
          changes: [{ name: 'nope', value: 1 }],
        }),
      )
      .thenThrows('unknown_setting');
  });

  it('folds values with who set them, when and how; null returns a setting to its default', () => {
    const events: SettingsEvent[] = [
      { ...named, metadata },
      { ...applied, metadata: { ...metadata, actorId: 'user:alice' } },
      {
        type: 'SettingChanged',
        data: { name: 'company.name', value: null, source: 'cli' },
        metadata,
      },
    ];
    const state = fold(settingsDecider, events);
    expect(state.values['assistant.name']).to.deep.equal({
      value: 'Aria',
      changedBy: 'cli:ops',
      changedAt: metadata.now,
      source: 'cli',
    });
    expect(state.values['assistant.language']).to.include({
      value: 'ar',
      changedBy: 'user:alice',
      source: 'onboarding',
    });
    expect(state.values).to.not.have.property('company.name');
    expect(state.applied).to.deep.equal(['session-1']);
  });
});
