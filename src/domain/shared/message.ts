/**
 * Who, when and why of every command and event. Deciders never read a clock or make ids: the
 * caller puts them here, so replaying the same commands gives the same events.
 */
export interface Metadata {
  /** ISO 8601 instant the command was issued. */
  readonly now: string;
  /** Who asked: a user id, `api-key:<id>`, or `system:<component>` for the product's own actions. */
  readonly actorId: string;
  /** Ties together everything one client request caused (the HTTP correlation id). */
  readonly correlationId: string;
  /** Id of the event or command that caused this one, when there is one. */
  readonly causationId?: string;
  /**
   * Version of the event data's schema when it was written (absent: 1). Set by the aggregate kit
   * from the event catalog, so an older event can be upcast when it is read.
   */
  readonly schemaVersion?: number;
}

type Payload = Record<string, unknown>;

export interface Command<Type extends string = string, Data extends Payload = Payload> {
  readonly type: Type;
  readonly data: Data;
  readonly metadata: Metadata;
}

export interface Event<Type extends string = string, Data extends Payload = Payload> {
  readonly type: Type;
  readonly data: Data;
  readonly metadata: Metadata;
}

/** An event as a decider emits it: the command handler stamps the command's metadata on it. */
export type EventDraft<E extends Event> = E extends Event ? Omit<E, 'metadata'> : never;

export type AnyEvent = Event<string, Payload>;
export type AnyCommand = Command<string, Payload>;
