import type { AnyCommand, AnyEvent, Decider, EventCatalog } from '../domain/shared/index.js';

/**
 * An aggregate as the command side runs it: its decider, the catalog its events are read and
 * written with, where its streams live, and how it stays cheap to load when streams grow long.
 */
export interface Aggregate<C extends AnyCommand, E extends AnyEvent, S> {
  /** Stream category: streams are named `<category>-<id>`. Lower-case letters, digits and `_`. */
  readonly category: string;
  /** The id of the stream a command is decided on (e.g. its `taskId`). */
  idOf(command: C): string;
  readonly decider: Decider<C, E, S>;
  readonly events: EventCatalog<E>;
  /**
   * Snapshots for aggregates whose streams grow long (a conversation with thousands of messages):
   * the state is saved every `every` events and loading folds only the events after it. `schema`
   * names the state's shape: raise it when the state changes, and older snapshots are ignored.
   * The state must be plain JSON.
   */
  readonly snapshot?: { readonly every: number; readonly schema: number };
  /**
   * Event types that record the removal of a stream. A command whose decision is one of them
   * writes it to the content-free purge record stream instead of the aggregate's own stream
   * (which is about to disappear), and the purge reactor then deletes the stream.
   */
  readonly purgedBy?: ReadonlyArray<E['type']>;
}

const CATEGORY = /^[a-z][a-z0-9_]*$/;

/** An aggregate whose category was checked, with the stream name of an id. */
export type DefinedAggregate<C extends AnyCommand, E extends AnyEvent, S> = Aggregate<C, E, S> & {
  streamOf(id: string): string;
};

export function defineAggregate<C extends AnyCommand, E extends AnyEvent, S>(
  aggregate: Aggregate<C, E, S>,
): DefinedAggregate<C, E, S> {
  if (!CATEGORY.test(aggregate.category)) throw new Error(`invalid stream category ${aggregate.category}`);
  return { ...aggregate, streamOf: (id) => `${aggregate.category}-${id}` };
}

/** Where the record of a stream's removal is kept: its own content-free stream, which outlives it. */
export function purgeRecordStream(stream: string): string {
  return `purged-${stream}`;
}

export const PURGE_RECORD_PREFIX = 'purged-';
