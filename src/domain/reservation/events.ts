import type { Event } from '../shared/index.js';
import { defineEvents } from '../shared/index.js';

/**
 * `holder` claims the unique `key` of `kind` (a source path, a URL, a content hash, a user name).
 * When and why come from the event's metadata (`now`, `causationId`).
 */
export type KeyReserved = Event<'KeyReserved', { kind: string; key: string; holder: string }>;
/** The key is free to be claimed again (the stream stays: a deleted one could never be written again). */
export type KeyReleased = Event<'KeyReleased', { kind: string; key: string }>;

export type ReservationEvent = KeyReserved | KeyReleased;

export const reservationEvents = defineEvents<ReservationEvent>({ KeyReserved: {}, KeyReleased: {} });
