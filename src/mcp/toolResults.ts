import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ConcurrencyError } from '../commands/commandHandler.js';
import { DomainError } from '../domain/shared/index.js';
import { ModelError } from '../models/modelError.js';
import { ParseError } from '../parsing/errors.js';
import { isServiceUnavailable } from '../unavailable.js';
import type { McpSession } from './mcpContext.js';

/** A tool's answer: the data for programs, and the same read aloud for the model. */
export function answered(structured: Record<string, unknown>, text: string): CallToolResult {
  return { structuredContent: structured, content: [{ type: 'text', text }] };
}

/**
 * A call that could not do what was asked: the model reads why (a tool error, not a protocol error,
 * so that it can correct itself), and programs get the same as data when there is any.
 */
export function refused(text: string, structured?: Record<string, unknown>): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text }],
    ...(structured ? { structuredContent: structured } : {}),
  };
}

/** What a client is told of an error: the rule a domain error names, or that something is down. */
export function reasonOf(error: unknown): string | null {
  if (error instanceof DomainError) return `${error.code}: ${error.message}`;
  if (error instanceof ConcurrencyError) return `concurrent_modification: ${error.message}; retry`;
  if (error instanceof ParseError) return `${error.code}: ${error.message}`;
  if (isServiceUnavailable(error)) return `service_unavailable: ${error.message}; retry later`;
  if (error instanceof ModelError)
    return `model_unavailable: a model did not answer (${error.code}); retry later`;
  return null;
}

/**
 * Runs a tool's handler, turning what it throws into a tool error. Errors nobody expected are
 * logged with their stack and told as such: their messages may name files, queries or internals.
 */
export function guarded<A>(
  session: McpSession,
  tool: string,
  handler: (args: A, signal: AbortSignal) => Promise<CallToolResult>,
): (args: A, extra: { signal: AbortSignal }) => Promise<CallToolResult> {
  return async (args, extra) => {
    try {
      return await handler(args, extra.signal);
    } catch (error) {
      extra.signal.throwIfAborted();
      const reason = reasonOf(error);
      if (reason !== null) {
        session.log.info({ tool, reason }, 'MCP tool call refused');
        return refused(reason);
      }
      session.log.error({ err: error, tool }, 'MCP tool call failed');
      return refused('internal_error: an unexpected error occurred; see the server log');
    }
  };
}
