import type { EventFilter } from './eventStore.js';
import { matchesFilter } from './eventStore.js';

/**
 * The positions, types and streams of the events this process appended last. Every append wakes
 * every subscription, and most look only for other types: each such wake-up was a read of the log
 * finding nothing (ten subscriptions, several appends per upload: a tenth of the request thread's
 * time while small files were ingested). When the journal holds every position a subscription has
 * not read and none of them matches its filter, the subscription moves past them without a read.
 * Positions it lacks — another process's appends, older ones, deleted ones — mean "read the log".
 */
export interface AppendJournal {
  record(position: number, type: string, stream: string): void;
  /**
   * The newest recorded position when every position after `after` up to it is recorded and none
   * matches `filter`; null when the log must be read.
   */
  skipTo(after: number, filter: EventFilter): number | null;
}

export function createAppendJournal(capacity = 4_096): AppendJournal {
  // Insertion order is position order: this process's commits come one after another.
  const entries = new Map<number, { type: string; streamName: string }>();
  let head = 0;
  return {
    record(position, type, stream) {
      entries.set(position, { type, streamName: stream });
      head = Math.max(head, position);
      if (entries.size > capacity) entries.delete(entries.keys().next().value!);
    },
    skipTo(after, filter) {
      if (after >= head || head - after > capacity) return null;
      for (let position = after + 1; position <= head; position += 1) {
        const entry = entries.get(position);
        if (!entry || matchesFilter(entry, filter)) return null;
      }
      return head;
    },
  };
}
