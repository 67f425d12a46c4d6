import { settingsAggregate } from '../commands/aggregates.js';
import type { ModuleDeclaration } from '../moduleDeclaration.js';

/** The assistant's settings: one stream, read from the stream itself (no read model). */
export const settingsModule: ModuleDeclaration = {
  name: 'settings',
  aggregates: [settingsAggregate],
  projections: [],
};
