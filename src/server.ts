import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Config } from './config.js';

export interface RunningServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** The port is taken: start-up stops with one line saying so. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
}

type ServerConfig = Pick<Config, 'host' | 'port' | 'headersTimeoutMs' | 'requestTimeoutMs'>;

/** The request line and headers together, at most. */
const MAX_HEADER_BYTES = 256 * 1024;

/**
 * Listens with the app; `close` stops taking connections, lets in-flight requests finish, and ends
 * idle ones. Node enforces the header and whole-request timeouts (the body-idle one is the multipart
 * reader's); it checks them every second rather than every 30 s, so a stalled client is dropped close
 * to its deadline.
 */
export async function listen(
  app: Koa,
  runtime: { config: ServerConfig },
  /** The variable that chose the port, named when it is taken. */
  portVariable = 'PORT',
): Promise<RunningServer> {
  const { config } = runtime;
  const server = createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
      keepAliveTimeout: 65_000,
      // GET requests carry text in their query (`stream_ai_response`'s prompt, up to 8,000
      // characters, up to 9 bytes each when percent-encoded): Node's 16 KiB default would refuse
      // them with a bare 431 before the API could validate them and answer in its own error shape.
      maxHeaderSize: MAX_HEADER_BYTES,
    },
    app.callback(),
  );
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException): void =>
      reject(
        error.code === 'EADDRINUSE'
          ? new PortInUseError(
              `port ${config.port} on ${config.host} is already in use (set ${portVariable} to another)`,
            )
          : error,
      );
    server.once('error', failed);
    server.listen(config.port, config.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  return {
    server,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Long-lived streams (SSE) would hold the close forever.
        setTimeout(() => server.closeAllConnections(), 5_000).unref();
      }),
  };
}
