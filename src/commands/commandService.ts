import type { AnyCommand, AnyEvent } from '../domain/shared/index.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { DefinedAggregate } from './aggregate.js';
import { createCommandHandler, type CommandOutcome } from './commandHandler.js';
import { metadataFor, type Caller, type Clock } from './context.js';
import type { SnapshotStore } from './snapshots.js';

/** The data of the command of type `T` among `C`. */
export type CommandData<C extends AnyCommand, T extends C['type']> = Extract<C, { type: T }>['data'];

/**
 * An aggregate's commands as the rest of the product runs them: by type and data, stamped with the
 * caller and the clock, on the stream the aggregate names for the data. One service serves every
 * aggregate; what differs between them is declared in the aggregate.
 */
export interface CommandService<C extends AnyCommand, E extends AnyEvent, S> {
  execute<T extends C['type']>(
    type: T,
    data: CommandData<C, T>,
    caller: Caller,
  ): Promise<CommandOutcome<E, S>>;
  /** The current state of one stream, read from the stream itself (not a projection). */
  read(id: string): Promise<{ state: S; version: number }>;
}

export interface CommandServiceDeps {
  eventStore: EventStore;
  clock: Clock;
  snapshots?: SnapshotStore;
}

export function createCommandService<C extends AnyCommand, E extends AnyEvent, S>(
  aggregate: DefinedAggregate<C, E, S>,
  deps: CommandServiceDeps,
): CommandService<C, E, S> {
  const handler = createCommandHandler(aggregate, {
    eventStore: deps.eventStore,
    ...(deps.snapshots ? { snapshots: deps.snapshots } : {}),
  });
  return {
    execute(type, data, caller) {
      const command = { type, data, metadata: metadataFor(caller, deps.clock) } as unknown as C;
      return handler.handle(aggregate.idOf(command), command);
    },
    read: (id) => handler.read(id),
  };
}
