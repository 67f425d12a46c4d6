import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Runtime } from './runtime.js';

export interface RunningServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Listens with the app; `close` stops taking connections, lets in-flight requests finish, and ends idle ones. */
export async function listen(app: Koa, runtime: Pick<Runtime, 'config'>): Promise<RunningServer> {
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0; // uploads and SSE streams may legitimately take long
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(runtime.config.port, runtime.config.host, () => {
      server.off('error', reject);
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
