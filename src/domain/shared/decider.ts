import type { AnyCommand, AnyEvent, EventDraft } from './message.js';

/**
 * An aggregate's behaviour as three pure functions.
 *
 * `decide` returns the events a command causes given the current state: `[]` means there is nothing
 * to do (so repeating a command is harmless), and a broken rule throws a `DomainError`. `evolve` folds
 * one event into the state; it is total and never throws, because stored events are facts. It sees
 * the event's metadata (when and by whom), which rules about time — expiry, a purge 30 days after a
 * deletion — need; the command handler stamps the command's metadata on new events before folding.
 */
export interface Decider<C extends AnyCommand, E extends AnyEvent, S> {
  decide(command: C, state: S): EventDraft<E>[];
  evolve(state: S, event: E): S;
  initialState(): S;
}

export function fold<E extends AnyEvent, S>(
  decider: Pick<Decider<AnyCommand, E, S>, 'evolve' | 'initialState'>,
  events: Iterable<E>,
  from: S = decider.initialState(),
): S {
  let state = from;
  for (const event of events) state = decider.evolve(state, event);
  return state;
}
