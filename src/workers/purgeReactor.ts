import { PURGE_RECORD_PREFIX } from '../commands/aggregate.js';
import type { SnapshotStore } from '../commands/snapshots.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { Reactor } from './reactors.js';
import type { Scrubber } from './scrubber.js';

/**
 * Removes purged streams: for each purge record (written to `purged-<stream>` by the aggregate kit,
 * after which read models drop what they derived) it deletes the stream and its snapshot, and asks
 * for a scrub. Idempotent: deleting a deleted stream does nothing more. The stream to delete is
 * taken from the record's own stream name, so no event elsewhere can make it delete another stream.
 */
export function purgeReactor(deps: {
  eventStore: Pick<EventStore, 'deleteStream'>;
  snapshots: Pick<SnapshotStore, 'delete'>;
  scrubber: Pick<Scrubber, 'request'>;
  purgeTypes: readonly string[];
}): Reactor {
  return {
    name: 'purge',
    handles: deps.purgeTypes,
    async react(event) {
      if (!event.streamName.startsWith(PURGE_RECORD_PREFIX)) return;
      const stream = event.streamName.slice(PURGE_RECORD_PREFIX.length);
      await deps.eventStore.deleteStream(stream);
      await deps.snapshots.delete(stream);
      deps.scrubber.request(event.position);
    },
  };
}
