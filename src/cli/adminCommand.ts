import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import type { Caller } from '../commands/context.js';
import { DomainError } from '../domain/shared/index.js';

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

/**
 * Runs an administrative command on an open store and closes it: a refusal of the domain (no such
 * user, an invalid value) is one line on standard error and exit status 1; anything else propagates.
 */
export async function runAdminCommand(
  run: () => Promise<number>,
  store: { close(): Promise<void> },
): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof DomainError) {
      process.stderr.write(`archivist: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await store.close();
  }
}
