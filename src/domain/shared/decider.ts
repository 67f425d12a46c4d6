import type { AnyCommand, AnyEvent, EventDraft } from './message.js';

/**
 * An aggregate's behaviour as three pure functions.
 *
 * `decide` returns the events a command causes given the current state: `[]` means there is nothing
 * to do (so repeating a command is harmless), and a broken rule throws a `DomainError`. `evolve` folds
 * one event into the state; it is total and never throws, because stored events are facts.
 */
export interface Decider<C extends AnyCommand, E extends AnyEvent, S> {
  decide(command: C, state: S): EventDraft<E>[];
  evolve(state: S, event: E | EventDraft<E>): S;
  initialState(): S;
}

export function fold<E extends AnyEvent, S>(
  decider: Pick<Decider<AnyCommand, E, S>, 'evolve' | 'initialState'>,
  events: Iterable<E | EventDraft<E>>,
): S {
  let state = decider.initialState();
  for (const event of events) state = decider.evolve(state, event);
  return state;
}
