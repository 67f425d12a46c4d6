import type { Command } from '../shared/index.js';

export type ReserveKey = Command<'ReserveKey', { kind: string; key: string; holder: string }>;
export type ReleaseKey = Command<'ReleaseKey', { kind: string; key: string }>;

export type ReservationCommand = ReserveKey | ReleaseKey;
