import type { Metadata } from '../domain/shared/index.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { WrongExpectedVersionError } from '../eventStore/eventStore.js';

export type ReservationOutcome = { reserved: true } | { reserved: false; holder: string };

/**
 * Claims a unique key (a source path, a URL, a content hash) for `holder` by appending to the
 * stream `reservation-<kind>-<key>`, which must not exist yet: of two concurrent claims exactly one
 * wins, and the loser learns who holds the key.
 */
export async function reserve(
  store: EventStore,
  kind: string,
  key: string,
  holder: string,
  metadata: Metadata,
): Promise<ReservationOutcome> {
  const stream = reservationStream(kind, key);
  try {
    await store.append(stream, [{ type: 'KeyReserved', data: { kind, key, holder }, metadata }], {
      expectedVersion: 'no_stream',
    });
    return { reserved: true };
  } catch (error) {
    if (!(error instanceof WrongExpectedVersionError)) throw error;
    const [claim] = await store.readStream(stream, { maxCount: 1 });
    return { reserved: false, holder: String(claim?.data['holder'] ?? '') };
  }
}

/** Frees a key so it can be claimed again (the reservation stream is deleted). */
export async function release(store: EventStore, kind: string, key: string): Promise<void> {
  await store.deleteStream(reservationStream(kind, key));
}

export function reservationStream(kind: string, key: string): string {
  return `reservation-${kind}-${key}`;
}
