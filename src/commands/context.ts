import type { Metadata } from '../domain/shared/index.js';

/** Who is asking and on behalf of which request: what the HTTP layer (or a worker) knows. */
export interface Caller {
  actorId: string;
  correlationId: string;
  /** Whose reads these are, for the knowledge base's access control; absent: a service (all). */
  reader?: Reader;
}

/**
 * Who reads the knowledge base: a service (an `X-API-Key` of API_KEYS, the CLI, the product itself)
 * sees everything; a user sees the collections open to everyone and those granted to them, and an
 * administrator everything.
 */
export type Reader = { kind: 'service' } | { kind: 'user'; name: string; admin: boolean };

export type Clock = () => Date;

export function metadataFor(caller: Caller, clock: Clock): Metadata {
  return { now: clock().toISOString(), actorId: caller.actorId, correlationId: caller.correlationId };
}
