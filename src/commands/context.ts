import type { Metadata } from '../domain/shared/index.js';

/** Who is asking and on behalf of which request: what the HTTP layer (or a worker) knows. */
export interface Caller {
  actorId: string;
  correlationId: string;
}

export type Clock = () => Date;

export function metadataFor(caller: Caller, clock: Clock): Metadata {
  return { now: clock().toISOString(), actorId: caller.actorId, correlationId: caller.correlationId };
}
