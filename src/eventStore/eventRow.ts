import type { Metadata } from '../domain/shared/index.js';
import type { RecordedEvent } from './eventStore.js';

/**
 * An event as the SQL adapters store it: JSON as text, so it reads back byte for byte. Positions and
 * versions are numbers in SQLite and strings in PostgreSQL (its bigint would lose precision in JS).
 */
export interface EventRow<Integer extends number | string = number | string> {
  position: Integer;
  stream: string;
  version: Integer;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
}

export function recordedEventOf(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    type: row.type,
    data: JSON.parse(row.data) as Record<string, unknown>,
    metadata: JSON.parse(row.metadata) as Metadata,
    streamName: row.stream,
    streamVersion: Number(row.version),
    position: Number(row.position),
    recordedAt: row.recorded_at,
  };
}
