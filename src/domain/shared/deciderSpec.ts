import type { Decider } from './decider.js';
import { fold } from './decider.js';
import { deepEqual } from './deepEqual.js';
import { DomainError } from './errors.js';
import type { AnyCommand, AnyEvent, EventDraft, Metadata } from './message.js';

/** What history events without their own metadata are given (a fixed instant and actor). */
const GIVEN_METADATA: Metadata = {
  now: '2026-01-01T00:00:00.000Z',
  actorId: 'given',
  correlationId: 'given',
};

/**
 * given / when / then for deciders:
 *
 *     spec(taskDecider).given([created]).when(cancel).then([cancelled]);
 *     spec(taskDecider).given([created, completed]).when(cancel).thenThrows('task_finished');
 *
 * History events may omit their metadata (then they get a fixed one) or carry it, for rules about
 * time and actors. `then` and `thenThrows` throw an `Error` describing the difference, so any test
 * runner reports it.
 */
export function spec<C extends AnyCommand, E extends AnyEvent, S>(decider: Decider<C, E, S>) {
  return {
    given(history: ReadonlyArray<E | EventDraft<E>>) {
      const events = history.map((event) =>
        'metadata' in event ? (event as E) : ({ ...event, metadata: GIVEN_METADATA } as unknown as E),
      );
      return {
        when(command: C) {
          const run = (): EventDraft<E>[] => decider.decide(command, fold(decider, events));
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
              let drafts: EventDraft<E>[];
              try {
                drafts = run();
              } catch (error) {
                if (error instanceof DomainError && error.code === code) return;
                throw new Error(
                  `decide(${command.type}) threw ${String(error)} instead of a DomainError '${code}'`,
                );
              }
              throw new Error(
                `decide(${command.type}) returned ${JSON.stringify(drafts)} instead of throwing '${code}'`,
              );
            },
          };
        },
      };
    },
  };
}
