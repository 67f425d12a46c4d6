import type { Decider } from '../shared/index.js';
import type { ReservationCommand } from './commands.js';
import type { ReservationEvent } from './events.js';

/** A key is free, or held: by whom, since when, and what made the claim (e.g. `task:<id>`), if it says. */
export type ReservationState =
  { status: 'free' } | { status: 'held'; holder: string; since: string; cause: string | null };

/**
 * One unique key. Of two concurrent claims exactly one is recorded (the second is decided again on
 * the state the first left, and finds the key held); a claim of a held key changes nothing, and the
 * claimant learns the holder from the state. A released key can be claimed again.
 */
export const reservationDecider: Decider<ReservationCommand, ReservationEvent, ReservationState> = {
  decide(command, state) {
    const { kind, key } = command.data;
    switch (command.type) {
      case 'ReserveKey':
        return state.status === 'held'
          ? []
          : [{ type: 'KeyReserved', data: { kind, key, holder: command.data.holder } }];
      case 'ReleaseKey': {
        const { holder } = command.data;
        const theirs = state.status === 'held' && (holder === undefined || state.holder === holder);
        return theirs ? [{ type: 'KeyReleased', data: { kind, key } }] : [];
      }
    }
  },
  evolve(_state, event) {
    return event.type === 'KeyReserved'
      ? {
          status: 'held',
          holder: event.data.holder,
          since: event.metadata.now,
          cause: event.metadata.causationId ?? null,
        }
      : { status: 'free' };
  },
  initialState: () => ({ status: 'free' }),
};
