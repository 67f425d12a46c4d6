import type { Command } from '../shared/index.js';
import type { AccessLevel } from './events.js';

export type GrantCollectionAccess = Command<
  'GrantCollectionAccess',
  { collection: string; user: string; level: AccessLevel }
>;
export type RevokeCollectionAccess = Command<'RevokeCollectionAccess', { collection: string; user: string }>;

export type CollectionCommand = GrantCollectionAccess | RevokeCollectionAccess;
