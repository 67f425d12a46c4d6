import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Context, Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { createMcpServer, type McpDeps } from '../../mcp/mcpServer.js';
import type { RateLimitClass } from '../../rateLimit/rateLimiter.js';
import { principalOf } from '../assistant/auth.js';
import { HttpError, toHttpError } from '../httpError.js';
import type { RequestState } from '../mountRoutes.js';

/** Where MCP clients connect (Streamable HTTP). */
export const MCP_PATH = '/mcp';

/** Why no pending action is put to the user over HTTP, whatever the client declared. */
const NO_ELICITATION_OVER_HTTP =
  'this server cannot ask you over HTTP: it is stateless, so your answer would arrive on another request';

export interface McpRouteDeps {
  mcp: McpDeps;
  maxJsonBytes: number;
  /** The Assistant API's rate limits: a request calling a tool counts as a tool execution. */
  rateLimit?: (kind: RateLimitClass) => Middleware;
}

/** A JSON-RPC error code for an HTTP failure: -32700 for JSON that does not parse, else a server error. */
function jsonRpcCode(error: HttpError): number {
  if (error.type === 'invalid_json') return -32700;
  return error.status >= 500 ? -32603 : -32000;
}

/**
 * Failures at `/mcp` before the MCP transport answers (credentials, rate limits, body size, JSON,
 * methods) in JSON-RPC's error shape, with their HTTP status and headers: MCP clients read that,
 * not the Retrieval API's shape. Mounted ahead of the authentication guard, whose 401 it shapes.
 */
export function mcpErrors(): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== MCP_PATH) return next();
    try {
      await next();
    } catch (raw) {
      const error = toHttpError(raw);
      const { log } = ctx.state as RequestState;
      if (error.status >= 500 && error.status !== 503 && error.status !== 504) {
        log.error({ err: raw, status: error.status }, 'MCP request failed');
      } else {
        log.info({ status: error.status, type: error.type, detail: error.message }, 'MCP request rejected');
      }
      if (ctx.headerSent) return;
      ctx.respond = true;
      ctx.status = error.status;
      ctx.body = {
        jsonrpc: '2.0',
        error: {
          code: jsonRpcCode(error),
          message: error.message,
          data: { type: error.type, status_code: error.status },
        },
        id: null,
      };
      ctx.set(error.headers);
    }
  };
}

/** Whether a JSON-RPC body (one message or a batch) calls a tool. */
function callsTool(body: unknown): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some((message) => (message as { method?: unknown } | null)?.method === 'tools/call');
}

/**
 * MCP over Streamable HTTP, stateless: every POST gets a server of its own for the authenticated
 * user, closed with the response, so any API process can answer any request and nothing is kept
 * between them (no sessions, no server-sent event stream on GET, so GET and DELETE are 405).
 */
export function mcpEndpoint(deps: McpRouteDeps): Middleware {
  const readJson = koaBody({
    json: true,
    multipart: false,
    urlencoded: false,
    text: false,
    jsonLimit: deps.maxJsonBytes,
    // JSON-RPC messages are objects (a batch, an array of them): anything else does not parse.
    jsonStrict: true,
  });

  async function serve(ctx: Context, body: unknown): Promise<void> {
    const state = ctx.state as RequestState;
    const server = await createMcpServer(deps.mcp, {
      principal: principalOf(ctx),
      correlationId: () => state.correlationId,
      log: state.log,
      noElicitation: NO_ELICITATION_OVER_HTTP,
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    ctx.res.once('close', () => {
      server.close().catch((error: unknown) => state.log.debug({ err: error }, 'MCP server close failed'));
    });
    await server.connect(transport);
    ctx.respond = false;
    try {
      await transport.handleRequest(ctx.req, ctx.res, body);
    } catch (error) {
      if (ctx.res.headersSent) throw error;
      ctx.respond = true;
      throw error;
    }
  }

  const limitTools = deps.rateLimit?.('tools') ?? null;

  return async (ctx) => {
    // What the request metrics name it by.
    (ctx.state as RequestState).route = `${ctx.method} ${MCP_PATH}`;
    if (ctx.method !== 'POST') {
      throw new HttpError(
        405,
        'method_not_allowed',
        `${ctx.method} is not served at ${MCP_PATH}: this MCP endpoint is stateless and takes JSON-RPC messages by POST only`,
        [],
        { Allow: 'POST' },
      );
    }
    if (!ctx.is('application/json')) {
      throw new HttpError(
        415,
        'unsupported_media_type',
        'MCP messages are JSON (Content-Type: application/json)',
      );
    }
    await readJson(ctx, async () => undefined);
    const body: unknown = ctx.request.body;
    if (limitTools && callsTool(body)) await limitTools(ctx, () => serve(ctx, body));
    else await serve(ctx, body);
  };
}
