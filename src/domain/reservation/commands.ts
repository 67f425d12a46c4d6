import type { Command } from '../shared/index.js';

export type ReserveKey = Command<'ReserveKey', { kind: string; key: string; holder: string }>;
/** `holder`, when given: release only that holder's claim (a takeover must not free a newer one). */
export type ReleaseKey = Command<'ReleaseKey', { kind: string; key: string; holder?: string }>;

export type ReservationCommand = ReserveKey | ReleaseKey;
