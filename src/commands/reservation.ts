import type { Metadata } from '../domain/shared/index.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { reservationAggregate } from './aggregates.js';
import { createCommandHandler } from './commandHandler.js';
import type { ReservationCommand } from '../domain/reservation/commands.js';
import type { ReservationState } from '../domain/reservation/decider.js';
import type { ReservationEvent } from '../domain/reservation/events.js';

export type ReservationOutcome =
  | { reserved: true }
  /**
   * `since`: when the holder claimed the key (its claim's `metadata.now`); `cause`: what made the
   * claim (its `metadata.causationId`, e.g. `task:<id>` for an ingestion task), when it says.
   */
  | { reserved: false; holder: string; since: string; cause: string | null };

type ReservationHandler = ReturnType<
  typeof createCommandHandler<ReservationCommand, ReservationEvent, ReservationState>
>;
/** One handler per event store: it holds nothing but its store, so it is made once. */
const handlers = new WeakMap<EventStore, ReservationHandler>();

function handler(store: EventStore): ReservationHandler {
  let found = handlers.get(store);
  if (!found)
    handlers.set(store, (found = createCommandHandler(reservationAggregate, { eventStore: store })));
  return found;
}

/**
 * Claims a unique key (a source path, a URL, a content hash, a user name) for `holder`, through the
 * reservation aggregate: of two concurrent claims exactly one wins, and the loser learns who holds
 * the key. `metadata` is the claim's (its `causationId` says what made it).
 */
export async function reserve(
  store: EventStore,
  kind: string,
  key: string,
  holder: string,
  metadata: Metadata,
): Promise<ReservationOutcome> {
  const { state } = await handler(store).handle(`${kind}-${key}`, {
    type: 'ReserveKey',
    data: { kind, key, holder },
    metadata,
  });
  if (state.status === 'held' && state.holder === holder) return { reserved: true };
  if (state.status !== 'held') throw new Error(`reservation ${kind}-${key} is free after a claim`);
  return { reserved: false, holder: state.holder, since: state.since, cause: state.cause };
}

/**
 * Frees a key so it can be claimed again; a free key stays as it is. With `holder`, only that
 * holder's claim is freed (one taken over from an ingestion that died must not free a newer claim).
 */
export async function release(
  store: EventStore,
  kind: string,
  key: string,
  metadata: Metadata,
  holder?: string,
): Promise<void> {
  const data = holder === undefined ? { kind, key } : { kind, key, holder };
  await handler(store).handle(`${kind}-${key}`, { type: 'ReleaseKey', data, metadata });
}

/** Who holds a key, or null. */
export async function holderOf(store: EventStore, kind: string, key: string): Promise<string | null> {
  const { state } = await handler(store).read(`${kind}-${key}`);
  return state.status === 'held' ? state.holder : null;
}

export function reservationStream(kind: string, key: string): string {
  return reservationAggregate.streamOf(`${kind}-${key}`);
}
