import { conversationAggregate } from '../commands/aggregates.js';
import { conversationSettings } from './conversationSettings.js';
import type { ModuleDeclaration } from '../moduleDeclaration.js';
import { conversationsProjection } from '../projections/conversationsProjection.js';

/** Conversations and their messages, which chat turns append to. */
export const conversationsModule: ModuleDeclaration = {
  name: 'conversations',
  aggregates: [conversationAggregate],
  projections: [conversationsProjection],
  settings: conversationSettings,
};
