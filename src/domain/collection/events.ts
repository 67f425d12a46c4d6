import type { Event } from '../shared/index.js';
import { defineEvents } from '../shared/index.js';

/** How far a grant reaches: reading a collection's documents, or also adding and deleting them. */
export type AccessLevel = 'read' | 'write';
export const ACCESS_LEVELS: readonly AccessLevel[] = ['read', 'write'];

/** `user` may read (or also write) the documents of `collection`; a collection with grants is private. */
export type CollectionAccessGranted = Event<
  'CollectionAccessGranted',
  { collection: string; user: string; level: AccessLevel }
>;
/** `user`'s grant on `collection` is withdrawn. */
export type CollectionAccessRevoked = Event<'CollectionAccessRevoked', { collection: string; user: string }>;

export type CollectionEvent = CollectionAccessGranted | CollectionAccessRevoked;

export const collectionEvents = defineEvents<CollectionEvent>({
  CollectionAccessGranted: {},
  CollectionAccessRevoked: {},
});

/** The collection every document belongs to unless it is given another. */
export const DEFAULT_COLLECTION = 'default';
/** Lower-case letters, digits, `-` and `_`, up to 64, starting with a letter or digit. */
export const COLLECTION_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
