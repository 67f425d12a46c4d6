import { SETTING_NAMES } from '../../src/domain/settings/decider.js';
import type { Runtime } from '../../src/runtime.js';
import { clusterMode } from './cluster.js';

/**
 * Returns every assistant setting to its default, in cluster mode: there the settings are one stream
 * shared by every suite and run, so a suite that changes them puts them back, and one that expects
 * the defaults makes sure of them. Embedded, the settings go with the app.
 */
export async function resetAssistantSettings(runtime: Pick<Runtime, 'settings'>): Promise<void> {
  if (!clusterMode()) return;
  const caller = { actorId: 'test', correlationId: 'reset-settings' };
  // Setting an unset setting to null changes nothing (no event).
  for (const name of SETTING_NAMES) await runtime.settings.change(name, null, 'api', caller);
}
