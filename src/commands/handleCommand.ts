import type { AnyCommand, AnyEvent, Decider, EventDraft } from '../domain/shared/index.js';
import { fold } from '../domain/shared/index.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { WrongExpectedVersionError } from '../eventStore/eventStore.js';

export interface CommandOutcome<E extends AnyEvent, S> {
  /** Events this command appended (empty when there was nothing to do). */
  appended: Array<EventDraft<E>>;
  /** The aggregate's state after the command. */
  state: S;
  /** Stream version after the command. */
  version: number;
  /**
   * Global position to wait for before reading: of the last appended event, or of the stream's
   * last event when nothing was appended (so a repeated command still reads its own earlier write).
   */
  position: number;
}

/**
 * Runs a command against one stream: read it, fold it with `evolve`, `decide`, and append the new
 * events expecting the version that was read. A concurrent writer makes the append fail with a
 * version conflict; the command is then decided again on the new state (only then: every other
 * error propagates). Domain errors thrown by `decide` propagate unchanged.
 */
export async function handleCommand<C extends AnyCommand, E extends AnyEvent, S>(
  store: EventStore,
  stream: string,
  decider: Decider<C, E, S>,
  command: C,
  options: { maxAttempts?: number } = {},
): Promise<CommandOutcome<E, S>> {
  const maxAttempts = options.maxAttempts ?? 10;
  for (let attempt = 1; ; attempt += 1) {
    const history = await store.readStream(stream);
    const version = history.at(-1)?.streamVersion ?? 0;
    const state = fold(decider, history as unknown as E[]);
    const drafts = decider.decide(command, state);
    if (drafts.length === 0) {
      return { appended: [], state, version, position: history.at(-1)?.position ?? 0 };
    }
    try {
      const result = await store.append(
        stream,
        drafts.map((draft) => ({ type: draft.type, data: draft.data, metadata: command.metadata })),
        { expectedVersion: version },
      );
      return {
        appended: drafts,
        state: drafts.reduce((current, draft) => decider.evolve(current, draft), state),
        version: result.nextExpectedVersion,
        position: result.position,
      };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError) || attempt >= maxAttempts) throw error;
    }
  }
}
