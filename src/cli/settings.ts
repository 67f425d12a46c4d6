import { existsSync } from 'node:fs';
import { eventLogPath, openEventStore } from '../adapters.js';
import { operator, runAdminCommand } from './adminCommand.js';
import { settingsAggregate } from '../commands/aggregates.js';
import { createCommandService } from '../commands/commandService.js';
import { ConfigError, type Config } from '../config.js';
import { SETTING_NAMES, type SettingName } from '../domain/settings/decider.js';
import type { JsonValue } from '../domain/settings/events.js';
import { SETTING_DEFINITIONS } from '../settings/definitions.js';
import { createSettings, type Settings, type ToolInfo } from '../settings/settings.js';
import { builtinTools, type BuiltinToolDeps } from '../tools/builtinTools.js';

export const SETTINGS_USAGE = `  settings get [NAME]   Print the assistant's settings (or one) as JSON: value, default, who set it, when, how.
  settings set NAME VALUE
                        Set a setting; VALUE is JSON ('"Aria"', '{"delete_document":false}', null for the
                        default), or taken as a string when it is not JSON. Names: ${SETTING_NAMES.join(', ')}.`;

/**
 * The built-in tools' names, categories and risk levels, to check the tool names of `tools.*`
 * settings. Building the list calls none of the tools' services, so none is given.
 */
function toolCatalogue(): ToolInfo[] {
  return builtinTools({} as BuiltinToolDeps).map(({ name, category, risk }) => ({ name, category, risk }));
}

/** A command-line value: JSON when it parses, else the text itself (so `set assistant.name Aria` works). */
function parseValue(raw: string): JsonValue {
  try {
    return JSON.parse(raw) as JsonValue;
  } catch {
    return raw;
  }
}

function describe(settings: Awaited<ReturnType<Settings['all']>>, name: SettingName) {
  const set = settings.set[name];
  return {
    name,
    value: settings.values[name],
    default: SETTING_DEFINITIONS[name].default,
    description: SETTING_DEFINITIONS[name].description,
    changed_by: set?.changedBy ?? null,
    changed_at: set?.changedAt ?? null,
    source: set?.source ?? null,
  };
}

/**
 * `archivist settings …`: reads and changes the assistant's settings aggregate directly in the
 * event store, beside a running server or without one. A server reads the settings' stream at each
 * use, so it honours a change at once. Exit status 0, 1 (a value the setting refuses), 2 (usage).
 */
export async function settingsCommand(config: Config, args: readonly string[]): Promise<number> {
  const [sub, name, value, ...extra] = args;
  const usage = (message: string): number => {
    process.stderr.write(`archivist: ${message}\n\n${SETTINGS_USAGE}\n`);
    return 2;
  };
  if (sub !== 'get' && sub !== 'set') return usage(`settings takes get or set${sub ? `; got ${sub}` : ''}`);
  if (sub === 'set' && (name === undefined || value === undefined || extra.length > 0)) {
    return usage('settings set takes NAME VALUE');
  }
  if (sub === 'get' && value !== undefined) return usage('settings get takes at most one NAME');
  // Only `set` may create the event log (settings before the first start): `get` inspects data that must exist.
  if (sub === 'get' && config.eventStore === 'file' && !existsSync(eventLogPath(config.dataDir))) {
    throw new ConfigError(`no Archivist data in ${config.dataDir} (no events.db there): check DATA_DIR`);
  }
  const eventStore = await openEventStore(config, { pollIntervalMs: null });
  const clock = () => new Date();
  const settings = createSettings({
    commands: createCommandService(settingsAggregate, { eventStore, clock }),
    eventStore,
    tools: toolCatalogue,
    configuredMaxTokens: config.llmMaxTokens,
    baseSystemPrompt: '',
  });
  const print = (output: unknown): void => {
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
  };
  return runAdminCommand(async () => {
    if (sub === 'get') {
      const all = await settings.all();
      if (name === undefined) {
        print(Object.fromEntries(SETTING_NAMES.map((setting) => [setting, describe(all, setting)])));
        return 0;
      }
      const known = SETTING_NAMES.find((setting) => setting === name);
      if (!known) {
        process.stderr.write(`archivist: no setting named ${name} (known: ${SETTING_NAMES.join(', ')})\n`);
        return 1;
      }
      print(describe(all, known));
      return 0;
    }
    const outcome = await settings.change(name!, parseValue(value!), 'cli', operator());
    const known = SETTING_NAMES.find((setting) => setting === name)!;
    print({ ...describe(await settings.all(), known), changed: outcome.appended.length > 0 });
    return 0;
  }, eventStore);
}
