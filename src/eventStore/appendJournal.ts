import type { AllBatch, EventFilter, RecordedEvent } from './eventStore.js';
import { matchesFilter } from './eventStore.js';
import { recordedEventOf, type EventRow } from './eventRow.js';

/**
 * The events this process appended last, as committed. Every append wakes every subscription of
 * the process: a dozen projections and reactors, six appends per uploaded file. Each used to read
 * the log for it — a SQLite read transaction, and each its own JSON parse of the same events, chunk
 * texts included — although most look for other types and the rest want what was just written. The
 * journal answers those reads from memory when it holds every position after the reader's cursor:
 * moving past events of other types, or handing over the matching ones (parsed once, shared
 * frozen). Positions it lacks — another process's appends, older ones, events over its byte budget,
 * deleted streams — mean "read the log".
 */
export interface AppendJournal {
  /** An event committed at `row.position` (its data and metadata as the JSON the log holds). */
  record(row: EventRow<number>): void;
  /**
   * The log's answer to "the events matching `filter` after `after`, at most `maxCount`", when the
   * journal holds every position after `after` up to its head and the matching ones whole; null when
   * the log must be read.
   */
  readAfter(after: number, maxCount: number, filter: EventFilter | undefined): AllBatch | null;
  /** Forgets a stream's events (it was deleted: its content must not be served any more). */
  forget(stream: string): void;
}

interface Entry {
  type: string;
  streamName: string;
  /** The event as the log holds it; dropped when over the byte budget. */
  row: EventRow<number> | null;
  /** The event parsed, once, for every subscriber. */
  event: RecordedEvent | null;
}

/** Freezes an event's data, so a subscriber cannot change what the others are handed. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

export function createAppendJournal(capacity = 4_096, maxBytes = 8 * 1024 * 1024): AppendJournal {
  // Insertion order is position order: this process's commits come one after another.
  const entries = new Map<number, Entry>();
  let head = 0;
  let bytes = 0;
  /** Positions whose entries hold a payload, oldest first (from `payloadStart` on). */
  let payloads: number[] = [];
  let payloadStart = 0;
  const sizeOf = (row: EventRow<number>): number => row.data.length + row.metadata.length;

  function dropPayload(entry: Entry): void {
    if (entry.row) bytes -= sizeOf(entry.row);
    entry.row = null;
    entry.event = null;
  }

  function eventOf(entry: Entry): RecordedEvent | null {
    if (entry.event) return entry.event;
    if (!entry.row) return null;
    entry.event = deepFreeze(recordedEventOf(entry.row));
    return entry.event;
  }

  return {
    record(row) {
      const entry: Entry = { type: row.type, streamName: row.stream, row, event: null };
      entries.set(row.position, entry);
      bytes += sizeOf(row);
      payloads.push(row.position);
      head = Math.max(head, row.position);
      if (entries.size > capacity) {
        const [oldest, dropped] = entries.entries().next().value!;
        dropPayload(dropped);
        entries.delete(oldest);
      }
      // Over the budget, the oldest events keep only their type and stream (enough to skip them).
      while (bytes > maxBytes && payloadStart < payloads.length) {
        const older = entries.get(payloads[payloadStart]!);
        payloadStart += 1;
        if (older) dropPayload(older);
      }
      // Forgotten positions pile up at the front: keep the list within twice the capacity.
      if (payloads.length - payloadStart > 2 * capacity || payloadStart > capacity) {
        payloads = payloads.slice(payloadStart).filter((position) => entries.get(position)?.row);
        payloadStart = 0;
      }
    },
    readAfter(after, maxCount, filter) {
      if (after >= head || head - after > capacity || maxCount <= 0) return null;
      const events: RecordedEvent[] = [];
      for (let position = after + 1; position <= head; position += 1) {
        const entry = entries.get(position);
        if (!entry) return null;
        if (!matchesFilter(entry, filter)) continue;
        const event = eventOf(entry);
        if (!event) return null;
        events.push(event);
        if (events.length === maxCount) return { events, checkpoint: position };
      }
      return { events, checkpoint: head };
    },
    forget(stream) {
      for (const [position, entry] of entries) {
        if (entry.streamName !== stream) continue;
        dropPayload(entry);
        entries.delete(position);
      }
    },
  };
}
