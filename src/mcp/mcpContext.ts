import type { Caller } from '../commands/context.js';
import type { Logger } from '../log.js';
import type { Runtime } from '../runtime.js';
import { actorIdOf, type Principal } from '../users/users.js';

/** What the MCP server uses of the product: the same use cases the HTTP routes call. */
export type McpDeps = Pick<Runtime, 'config' | 'version' | 'library' | 'readModels' | 'tools' | 'behind'>;

/** Whom one MCP server acts for, and what its transport can do. */
export interface McpSession {
  /** The connected user: every call reads, writes and requests actions as them. */
  principal: Principal;
  /** The correlation id of a call (the HTTP request's over HTTP, a new one per call over stdio). */
  correlationId(): string;
  log: Logger;
  /**
   * Null when the transport can carry a question to the user in the middle of a call (stdio, if the
   * client declared elicitation); otherwise why it cannot, told with every pending action.
   */
  noElicitation: string | null;
}

/** The caller of a call made in `session`: the user, reading the knowledge base as themselves. */
export function callerOf(session: McpSession): Caller {
  const { principal } = session;
  return {
    actorId: actorIdOf(principal),
    correlationId: session.correlationId(),
    reader: { kind: 'user', name: principal.name, admin: principal.admin },
  };
}

/** Waits, bounded as the HTTP routes wait, until `projections` hold the log up to `position`. */
export async function caughtUp(
  deps: McpDeps,
  position: number,
  projections: readonly string[],
): Promise<void> {
  if (position <= 0) return;
  await deps.behind(position, { projections, timeoutMs: deps.config.readYourWritesTimeoutMs });
}

/** The URI of a document as an MCP resource. */
export const documentUri = (docId: string): string => `archivist://documents/${encodeURIComponent(docId)}`;
