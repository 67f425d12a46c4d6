import type { Metadata } from '../domain/shared/index.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { WrongExpectedVersionError } from '../eventStore/eventStore.js';
import { ConcurrencyError } from './commandHandler.js';

/** Claims made in a row before giving up: each failed one means the key changed hands meanwhile. */
const MAX_ATTEMPTS = 8;

export type ReservationOutcome =
  | { reserved: true }
  /**
   * `since`: when the holder claimed the key (its claim's `metadata.now`); `cause`: what made the
   * claim (its `metadata.causationId`, e.g. `task:<id>` for an ingestion task), when it says.
   */
  | { reserved: false; holder: string; since: string; cause: string | null };

/**
 * Claims a unique key (a source path, a URL, a content hash) for `holder` by appending
 * `KeyReserved` to the stream `reservation-<kind>-<key>`, expecting the version it read: of two
 * concurrent claims exactly one wins, and the loser learns who holds the key. A key that was
 * released (its last event is `KeyReleased`) can be claimed again.
 */
export async function reserve(
  store: EventStore,
  kind: string,
  key: string,
  holder: string,
  metadata: Metadata,
): Promise<ReservationOutcome> {
  const stream = reservationStream(kind, key);
  for (let attempt = 1; ; attempt += 1) {
    const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    if (last?.type === 'KeyReserved') {
      return {
        reserved: false,
        holder: String(last.data['holder'] ?? ''),
        since: last.metadata.now,
        cause: last.metadata.causationId ?? null,
      };
    }
    try {
      await store.append(stream, [{ type: 'KeyReserved', data: { kind, key, holder }, metadata }], {
        expectedVersion: last ? last.streamVersion : 'no_stream',
      });
      return { reserved: true };
    } catch (error) {
      // Someone else claimed or released it meanwhile: look again, a bounded number of times.
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw new ConcurrencyError(stream, attempt);
    }
  }
}

/**
 * Frees a key so it can be claimed again. (Not by deleting the stream: a deleted stream can never be
 * appended to again, which would make the key unclaimable for ever.)
 */
export async function release(
  store: EventStore,
  kind: string,
  key: string,
  metadata: Metadata,
): Promise<void> {
  const stream = reservationStream(kind, key);
  const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
  if (last?.type !== 'KeyReserved') return;
  try {
    await store.append(stream, [{ type: 'KeyReleased', data: { kind, key }, metadata }], {
      expectedVersion: last.streamVersion,
    });
  } catch (error) {
    // Released (or released and claimed again) by someone else meanwhile: nothing left to do.
    if (!(error instanceof WrongExpectedVersionError)) throw error;
  }
}

export function reservationStream(kind: string, key: string): string {
  return `reservation-${kind}-${key}`;
}
