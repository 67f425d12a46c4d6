import type { SettingsCommand } from '../domain/settings/commands.js';
import type { SettingsState } from '../domain/settings/decider.js';
import { settingsDecider } from '../domain/settings/decider.js';
import type { SettingsEvent } from '../domain/settings/events.js';
import { ASSISTANT_SETTINGS_ID, settingsEvents } from '../domain/settings/events.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { defineAggregate } from './aggregate.js';
import type { CommandOutcome } from './commandHandler.js';
import { createCommandHandler } from './commandHandler.js';
import type { Caller, Clock } from './context.js';
import { metadataFor } from './context.js';

export const settingsAggregate = defineAggregate({
  category: 'settings',
  decider: settingsDecider,
  events: settingsEvents,
});

type DataOf<T extends SettingsCommand['type']> = Extract<SettingsCommand, { type: T }>['data'];
export type SettingsOutcome = CommandOutcome<SettingsEvent, SettingsState>;

/** The assistant settings' commands (one stream, `settings-assistant`), stamped from the caller and clock. */
export function createSettingsCommands(deps: { eventStore: EventStore; clock: Clock }) {
  const handler = createCommandHandler(settingsAggregate, { eventStore: deps.eventStore });
  function run<T extends SettingsCommand['type']>(
    type: T,
    data: DataOf<T>,
    caller: Caller,
  ): Promise<SettingsOutcome> {
    const command = { type, data, metadata: metadataFor(caller, deps.clock) } as SettingsCommand;
    return handler.handle(ASSISTANT_SETTINGS_ID, command);
  }
  return {
    change: (data: DataOf<'ChangeSetting'>, caller: Caller) => run('ChangeSetting', data, caller),
    apply: (data: DataOf<'ApplySettings'>, caller: Caller) => run('ApplySettings', data, caller),
    read: () => handler.read(ASSISTANT_SETTINGS_ID),
  };
}

export type SettingsCommands = ReturnType<typeof createSettingsCommands>;
