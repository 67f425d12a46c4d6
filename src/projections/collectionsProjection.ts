import { collectionEvents } from '../domain/collection/events.js';
import type { AccessLevel } from '../domain/collection/events.js';
import type { Projection } from './projection.js';

export const COLLECTION_GRANTS = 'collection_grants';

/** One user's grant on one collection; its id is `collection:user`. */
export type CollectionGrantView = {
  id: string;
  collection: string;
  user: string;
  level: AccessLevel;
  grantedAt: string;
};

export const grantId = (collection: string, user: string): string => `${collection}:${user}`;

/** The grants of every collection, by collection and by user, for access checks and listings. */
export const collectionsProjection: Projection = {
  name: 'collections',
  version: 1,
  handles: collectionEvents.types,
  collections: [{ name: COLLECTION_GRANTS, indexes: ['collection', 'user'] }],
  async apply(recorded, view) {
    const event = collectionEvents.decode(recorded);
    const id = grantId(event.data.collection, event.data.user);
    if (event.type === 'CollectionAccessGranted') {
      const grant: CollectionGrantView = { id, ...event.data, grantedAt: recorded.metadata.now };
      view.put(COLLECTION_GRANTS, grant);
    } else view.delete(COLLECTION_GRANTS, id);
  },
};
