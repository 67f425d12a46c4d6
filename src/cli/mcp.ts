import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Writable } from 'node:stream';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { eventLogPath } from '../adapters.js';
import type { Config } from '../config.js';
import { DataDirLockedError } from '../dataDirLock.js';
import { MCP_PATH } from '../http/mcp/mcpRoutes.js';
import { createLogger, type Logger } from '../log.js';

export const MCP_USAGE = `  mcp                   Serve MCP (the Model Context Protocol) on standard input and output, for an agent
                        that starts it: Archivist runs in this process on DATA_DIR, workers included,
                        acting as one user. Logs go to standard error. Stop the server on DATA_DIR first.
      --user <name>     The user it acts for (default: ARCHIVIST_USER), one of 'archivist users list'.
      --url <url>       Relay to the MCP endpoint (<url>/mcp) of a running server instead, authenticated
                        by the API key pair in ARCHIVIST_KEY (key:secret, as 'archivist users key' prints).`;

export interface McpOptions {
  user?: string | undefined;
  url?: string | undefined;
}

function usageError(message: string): number {
  process.stderr.write(`archivist mcp: ${message}\n\n${MCP_USAGE}\n`);
  return 2;
}

/**
 * Standard output for the protocol alone: what else would write there (a library's warning, a
 * parse worker's output, which Node pipes to this process's stdout) goes to standard error, and
 * the returned stream writes to the real standard output.
 */
function reserveStdout(): Writable {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout);
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      write(chunk, (error) => done(error ?? null));
    },
  });
}

/** Resolves when the client is gone (its end of standard input closed) or the process is told to stop. */
function untilDisconnected(): Promise<string> {
  return new Promise((resolve) => {
    process.stdin.once('end', () => resolve('input closed'));
    process.stdin.once('close', () => resolve('input closed'));
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

/** `archivist mcp`: the product on DATA_DIR in this process, or a relay to a running server (`--url`). */
export async function mcpCommand(
  config: Config,
  args: readonly string[],
  values: McpOptions,
): Promise<number> {
  if (args.length > 0) return usageError(`unexpected argument ${args[0]}`);
  // Standard output carries the protocol.
  const log = createLogger({ level: config.logLevel, to: 'stderr' });
  if (values.url !== undefined) return relay(values.url, process.env['ARCHIVIST_KEY'], log);
  const user = values.user ?? process.env['ARCHIVIST_USER'];
  if (!user) return usageError('name the user it acts for: --user NAME, or ARCHIVIST_USER');
  return serveLocally(config, user, log);
}

async function serveLocally(config: Config, userName: string, log: Logger): Promise<number> {
  if (config.eventStore === 'file' && !existsSync(eventLogPath(config.dataDir))) {
    process.stderr.write(
      `archivist mcp: no Archivist data in ${config.dataDir} (no events.db there): check DATA_DIR, or create the user first with 'archivist users add ${userName}'\n`,
    );
    return 2;
  }
  // Loaded here: the relay needs none of the product.
  const [{ createRuntime }, { rolesFor }, { createMcpServer }] = await Promise.all([
    import('../runtime.js'),
    import('../process.js'),
    import('../mcp/mcpServer.js'),
  ]);
  const output = reserveStdout();
  let runtime;
  try {
    runtime = await createRuntime(config, { log });
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    process.stderr.write(
      `archivist mcp: ${error.message}\nA server runs on this DATA_DIR: relay to it instead (--url <its address>, ARCHIVIST_KEY=key:secret).\n`,
    );
    return 2;
  }
  try {
    const principal = await runtime.users.byName(userName);
    if (!principal) {
      process.stderr.write(
        `archivist mcp: no user named ${userName} in ${config.dataDir}; create one with 'archivist users add ${userName}'\n`,
      );
      return 2;
    }
    // What `serve` runs, without the HTTP server: embedded, the workers and projections too, so
    // that ingestions complete and the actions a user confirms run.
    await runtime.start(rolesFor('serve', runtime.embedded));
    const server = await createMcpServer(runtime, {
      principal,
      correlationId: randomUUID,
      log,
      noElicitation: null,
    });
    const disconnected = untilDisconnected();
    await server.connect(new StdioServerTransport(process.stdin, output));
    log.info({ user: principal.name, dataDir: config.dataDir }, 'MCP server on standard input and output');
    const why = await disconnected;
    log.info({ why }, 'MCP server stopping');
    await server.close();
    return 0;
  } finally {
    await runtime.stop();
  }
}

/** A response to `initialize`: its protocol version goes on every later request of the relay. */
function initializedVersion(message: JSONRPCMessage): string | null {
  const result = (message as { result?: { protocolVersion?: unknown; serverInfo?: unknown } }).result;
  return typeof result?.protocolVersion === 'string' && result.serverInfo !== undefined
    ? result.protocolVersion
    : null;
}

/**
 * Forwards messages both ways between the client on standard input and output and a running
 * server's Streamable HTTP endpoint. A request the server cannot be reached for (or that it refuses,
 * 401 say) is answered with a JSON-RPC error, so the client is not left waiting.
 */
async function relay(url: string, key: string | undefined, log: Logger): Promise<number> {
  if (!key || !/^[^\s:]+:\S+$/.test(key)) {
    return usageError('--url needs the API key pair in ARCHIVIST_KEY (key:secret)');
  }
  let endpoint: URL;
  try {
    endpoint = new URL(`${url.replace(/\/+$/, '')}${MCP_PATH}`);
  } catch {
    return usageError(`--url must be an http:// or https:// address; got ${url}`);
  }
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
    return usageError(`--url must be an http:// or https:// address; got ${url}`);
  }
  const output = reserveStdout();
  const remote = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { Authorization: `token ${key}` } },
  });
  const local = new StdioServerTransport(process.stdin, output);
  const answer = (message: JSONRPCMessage): void => {
    local
      .send(message)
      .catch((error: unknown) => log.warn({ err: error }, 'MCP relay: cannot answer the client'));
  };
  local.onmessage = (message) => {
    remote.send(message).catch((error: unknown) => {
      log.warn({ err: error, endpoint: endpoint.href }, 'MCP relay: the server did not take a message');
      if (isJSONRPCRequest(message)) {
        answer({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32000, message: `Archivist at ${endpoint.href}: ${(error as Error).message}` },
        });
      }
    });
  };
  remote.onmessage = (message) => {
    const version = initializedVersion(message);
    if (version) remote.setProtocolVersion(version);
    answer(message);
  };
  remote.onerror = (error) =>
    log.warn({ err: error, endpoint: endpoint.href }, 'MCP relay: server stream error');
  local.onerror = (error) => log.warn({ err: error }, 'MCP relay: unreadable input');
  const disconnected = untilDisconnected();
  await remote.start();
  await local.start();
  log.info({ endpoint: endpoint.href }, 'MCP relay on standard input and output');
  const why = await disconnected;
  log.info({ why }, 'MCP relay stopping');
  await local.close();
  await remote.close();
  return 0;
}
