import type { AnyCommand, AnyEvent, EventDraft } from '../domain/shared/index.js';
import { fold } from '../domain/shared/index.js';
import type { EventStore, EventToAppend, RecordedEvent } from '../eventStore/eventStore.js';
import { WrongExpectedVersionError } from '../eventStore/eventStore.js';
import type { Aggregate } from './aggregate.js';
import { purgeRecordStream } from './aggregate.js';
import type { SnapshotStore } from './snapshots.js';

export interface CommandOutcome<E extends AnyEvent, S> {
  /** Events this command appended, with their metadata (empty when there was nothing to do). */
  appended: E[];
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

/** The stream kept changing under a command: every attempt met a concurrent writer. */
export class ConcurrencyError extends Error {
  override readonly name = 'ConcurrencyError';
  constructor(
    readonly stream: string,
    attempts: number,
  ) {
    super(`stream ${stream} was changed concurrently ${attempts} times in a row; try again`);
  }
}

export interface CommandHandlerOptions {
  eventStore: EventStore;
  snapshots?: SnapshotStore;
  /** Attempts in all when concurrent writers keep winning (default 12). */
  maxAttempts?: number;
  /** Waits between attempts (jittered), so contending writers spread out (default up to 4 ms, doubling, ≤ 250 ms). */
  backoffMs?: (attempt: number) => number;
}

interface Loaded<E extends AnyEvent, S> {
  state: S;
  version: number;
  position: number;
  /** Version of the snapshot the state started from (0: none). */
  snapshotVersion: number;
  tail: E[];
}

// Full jitter, capped at 250 ms: writers to one stream over a remote event store (PostgreSQL in the
// cluster, where an append takes tens of milliseconds under load) kept colliding within a 50 ms cap,
// and five concurrent chat turns of one conversation used up 8 attempts in about 0.2 s.
const defaultBackoff = (attempt: number): number => Math.random() * Math.min(250, 2 ** (attempt + 1));

/**
 * Runs commands against an aggregate's streams: read the stream (after its snapshot, if any) →
 * decode and upcast its events → fold them with `evolve` → `decide` → stamp the command's metadata
 * and schema versions → append expecting the version that was read. A concurrent writer makes the
 * append fail with a version conflict; the command is then decided again on the new state, a
 * bounded number of times. Domain errors thrown by `decide` propagate unchanged.
 */
export function createCommandHandler<C extends AnyCommand, E extends AnyEvent, S>(
  aggregate: Aggregate<C, E, S> & { streamOf(id: string): string },
  options: CommandHandlerOptions,
) {
  const { eventStore, snapshots } = options;
  const maxAttempts = options.maxAttempts ?? 12;
  const backoffMs = options.backoffMs ?? defaultBackoff;
  const snapshotting = aggregate.snapshot && snapshots ? aggregate.snapshot : null;
  const purgeTypes: ReadonlySet<string> = new Set(aggregate.purgedBy ?? []);
  const { decider, events: catalog } = aggregate;

  const decode = (recorded: RecordedEvent): E =>
    catalog.decode({ type: recorded.type, data: recorded.data, metadata: recorded.metadata });

  async function load(stream: string): Promise<Loaded<E, S>> {
    const snapshot = snapshotting ? await snapshots!.load(stream) : null;
    const usable = snapshot && snapshot.schema === snapshotting!.schema ? snapshot : null;
    const recorded = await eventStore.readStream(stream, { fromVersion: (usable?.version ?? 0) + 1 });
    const tail = recorded.map(decode);
    const start = usable ? (usable.state as S) : decider.initialState();
    const last = recorded.at(-1);
    return {
      state: fold(decider, tail, start),
      version: last?.streamVersion ?? usable?.version ?? 0,
      position: last?.position ?? 0,
      snapshotVersion: usable?.version ?? 0,
      tail,
    };
  }

  function stamp(drafts: ReadonlyArray<EventDraft<E>>, command: C): E[] {
    return drafts.map(
      (draft) => ({ ...draft, metadata: catalog.stamp(draft.type as E['type'], command.metadata) }) as E,
    );
  }

  const toAppend = (event: E): EventToAppend => ({
    type: event.type,
    data: event.data,
    metadata: event.metadata,
  });

  async function handle(id: string, command: C): Promise<CommandOutcome<E, S>> {
    const stream = aggregate.streamOf(id);
    for (let attempt = 1; ; attempt += 1) {
      const loaded = await load(stream);
      const drafts = decider.decide(command, loaded.state);
      if (drafts.length === 0) {
        return { appended: [], state: loaded.state, version: loaded.version, position: loaded.position };
      }
      const events = stamp(drafts, command);
      const purges = events.filter((event) => purgeTypes.has(event.type));
      try {
        if (purges.length > 0) {
          if (purges.length !== events.length) throw new Error('a purge decision must be the only event');
          // The record must outlive the stream it removes. One per stream: a second purge is a no-op.
          const result = await eventStore.append(purgeRecordStream(stream), purges.map(toAppend), {
            expectedVersion: 'no_stream',
          });
          return {
            appended: events,
            state: loaded.state,
            version: loaded.version,
            position: result.position,
          };
        }
        const result = await eventStore.append(stream, events.map(toAppend), {
          expectedVersion: loaded.version,
        });
        const state = fold(decider, events, loaded.state);
        if (snapshotting && result.nextExpectedVersion - loaded.snapshotVersion >= snapshotting.every) {
          // A cache: failing to save one only makes the next load longer.
          await snapshots!
            .save(stream, { version: result.nextExpectedVersion, schema: snapshotting.schema, state })
            .catch(() => undefined);
        }
        return { appended: events, state, version: result.nextExpectedVersion, position: result.position };
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
        if (purges.length > 0) {
          const existing = await eventStore.readStream(purgeRecordStream(stream), { maxCount: 1 });
          return {
            appended: [],
            state: loaded.state,
            version: loaded.version,
            position: existing[0]?.position ?? 0,
          };
        }
        if (attempt >= maxAttempts) throw new ConcurrencyError(stream, attempt);
        await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
      }
    }
  }

  return {
    aggregate,
    handle,
    /** The aggregate's current state and version, as a command would see it. */
    async read(id: string): Promise<{ state: S; version: number }> {
      const { state, version } = await load(aggregate.streamOf(id));
      return { state, version };
    },
  };
}
