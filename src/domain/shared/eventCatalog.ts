import type { AnyEvent, Metadata } from './message.js';

/** Upgrades an event's data from one schema version to the next; may use the event's metadata. */
export type Upcaster = (data: Record<string, unknown>, metadata: Metadata) => Record<string, unknown>;

export interface EventDefinition {
  /** Schema version of the data written today (default 1). Raise it when the data's shape changes. */
  readonly version?: number;
  /** `upcast[v]` turns data written at version v into version v + 1; one per older version. */
  readonly upcast?: Readonly<Record<number, Upcaster>>;
}

/** One definition per event type of the union: the compiler rejects a missing or an unknown type. */
export type EventDefinitions<E extends AnyEvent> = { readonly [Type in E['type']]: EventDefinition };

/** An event as stored, before decoding. */
export interface StoredEvent {
  type: string;
  data: Record<string, unknown>;
  metadata: Metadata;
}

/**
 * The event types of an aggregate, with what reading them needs: the list of types (for
 * subscriptions and projections, derived from the definitions the compiler checks against the
 * union), the schema version to stamp on new events, and decoding that upgrades older data.
 */
export interface EventCatalog<E extends AnyEvent> {
  readonly types: ReadonlyArray<E['type']>;
  has(type: string): type is E['type'];
  /** Schema version written today for `type`. */
  versionOf(type: E['type']): number;
  /** Metadata for a new event of `type`: the command's, with the schema version when above 1. */
  stamp(type: E['type'], metadata: Metadata): Metadata;
  /**
   * A stored event as the domain knows it today: its data upcast, one version at a time, from the
   * version it was written at. Throws on a type outside the catalog or a version with no upcaster
   * (a programming error: every older version needs one).
   */
  decode(stored: StoredEvent): E;
}

class UnknownEventError extends Error {
  override readonly name = 'UnknownEventError';
}

export function defineEvents<E extends AnyEvent>(definitions: EventDefinitions<E>): EventCatalog<E> {
  const entries = definitions as Readonly<Record<string, EventDefinition>>;
  const types = Object.keys(entries) as Array<E['type']>;
  for (const type of types) {
    const definition = entries[type]!;
    const version = definition.version ?? 1;
    for (let from = 1; from < version; from += 1) {
      if (!definition.upcast?.[from]) throw new Error(`event ${type} has no upcaster from version ${from}`);
    }
  }
  const has = (type: string): type is E['type'] => Object.hasOwn(entries, type);
  const versionOf = (type: E['type']): number => entries[type]?.version ?? 1;

  return {
    types,
    has,
    versionOf,
    stamp(type, metadata) {
      const version = versionOf(type);
      if (version === 1) {
        if (metadata.schemaVersion === undefined) return metadata;
        const { schemaVersion: _ignored, ...rest } = metadata;
        return rest;
      }
      return { ...metadata, schemaVersion: version };
    },
    decode(stored) {
      if (!has(stored.type)) throw new UnknownEventError(`no definition for the event type ${stored.type}`);
      const definition = entries[stored.type]!;
      const target = definition.version ?? 1;
      let version = stored.metadata.schemaVersion ?? 1;
      let data = stored.data;
      if (version > target) {
        throw new UnknownEventError(
          `${stored.type} was written at schema version ${version}; this code knows up to ${target}`,
        );
      }
      while (version < target) {
        data = definition.upcast![version]!(data, stored.metadata);
        version += 1;
      }
      return { type: stored.type, data, metadata: stored.metadata } as unknown as E;
    },
  };
}
