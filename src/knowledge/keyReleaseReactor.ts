import { PURGE_RECORD_PREFIX } from '../commands/aggregate.js';
import { release } from '../commands/reservation.js';
import { documentEvents } from '../domain/document/events.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { Reactor } from '../workers/reactors.js';

/**
 * Gives back the uniqueness keys (source path or URL, content hash) of a deleted document, so the
 * same file or page can be ingested again. Idempotent: releasing a released key does nothing.
 */
export function keyReleaseReactor(eventStore: EventStore): Reactor {
  return {
    name: 'document_keys',
    handles: ['DocumentDeleted'],
    async react(recorded) {
      if (!recorded.streamName.startsWith(PURGE_RECORD_PREFIX)) return;
      const event = documentEvents.decode(recorded);
      if (event.type !== 'DocumentDeleted') return;
      for (const { kind, key } of event.data.reservations) {
        await release(eventStore, kind, key, { ...recorded.metadata });
      }
    },
  };
}
