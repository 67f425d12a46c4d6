import type { Bus } from '../bus/bus.js';
import type { EventStore } from './eventStore.js';

/** Where processes announce that they appended events (payload: `{ position }`). */
export const EVENTS_APPENDED_SUBJECT = 'archivist.events.appended';

/**
 * Announces every successful append on the bus, so that other processes following the same event
 * store wake their subscriptions at once. The announcement is a hint, not a delivery: subscribers
 * read the events from the store, and poll as well, so a lost announcement only delays them.
 */
export function announceAppends(store: EventStore, bus: Pick<Bus, 'publish'>): EventStore {
  return {
    ...store,
    async append(stream, events, options) {
      const result = await store.append(stream, events, options);
      if (events.length > 0) bus.publish(EVENTS_APPENDED_SUBJECT, { position: result.position });
      return result;
    },
  };
}
