import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import type { Caller } from '../commands/context.js';

/** Who runs an administrative CLI command: the machine's user, recorded as the events' actor. */
export function operator(): Caller {
  let name = 'unknown';
  try {
    name = userInfo().username;
  } catch {
    // No user database entry (some containers): the actor is still the CLI.
  }
  return { actorId: `cli:${name}`, correlationId: randomUUID() };
}
