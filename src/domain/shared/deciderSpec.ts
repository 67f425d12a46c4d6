import type { Decider } from './decider.js';
import { fold } from './decider.js';
import { deepEqual } from './deepEqual.js';
import { DomainError } from './errors.js';
import type { AnyCommand, AnyEvent, EventDraft } from './message.js';

/**
 * given / when / then for deciders:
 *
 *     spec(taskDecider).given([created]).when(cancel).then([cancelled]);
 *     spec(taskDecider).given([created, completed]).when(cancel).thenThrows('task_finished');
 *
 * `then` and `thenThrows` throw an `Error` describing the difference, so any test runner reports it.
 */
export function spec<C extends AnyCommand, E extends AnyEvent, S>(decider: Decider<C, E, S>) {
  return {
    given(history: ReadonlyArray<E | EventDraft<E>>) {
      return {
        when(command: C) {
          const run = (): EventDraft<E>[] => decider.decide(command, fold(decider, history));
          return {
            then(expected: ReadonlyArray<EventDraft<E>>): void {
              const actual = run();
              if (!deepEqual(actual, expected)) {
                throw new Error(
                  `decide(${command.type}) returned\n${JSON.stringify(actual, null, 2)}\nbut expected\n${JSON.stringify(expected, null, 2)}`,
                );
              }
            },
            thenThrows(code: string): void {
              let events: EventDraft<E>[];
              try {
                events = run();
              } catch (error) {
                if (error instanceof DomainError && error.code === code) return;
                throw new Error(
                  `decide(${command.type}) threw ${String(error)} instead of a DomainError '${code}'`,
                );
              }
              throw new Error(
                `decide(${command.type}) returned ${JSON.stringify(events)} instead of throwing '${code}'`,
              );
            },
          };
        },
      };
    },
  };
}
