import { userAggregate } from '../commands/aggregates.js';
import { userSettings } from './userSettings.js';
import type { ModuleDeclaration } from '../moduleDeclaration.js';
import { usersProjection } from '../projections/usersProjection.js';

/** Users, their passwords, API keys and roles. */
export const usersModule: ModuleDeclaration = {
  name: 'users',
  aggregates: [userAggregate],
  projections: [usersProjection],
  settings: userSettings,
};
