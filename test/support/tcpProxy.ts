/** A TCP proxy for outage tests: forwards to a server, refuses connections, or swallows everything. */
import { createServer, connect, type Socket } from 'node:net';

export type ProxyMode = 'forward' | 'refuse' | 'silent';

export interface TcpProxy {
  /** `127.0.0.1:<port>` of the proxy. */
  address: string;
  /**
   * `forward` passes bytes both ways; `refuse` closes every open connection and each new one at
   * once; `silent` keeps connections open and answers nothing (a server that hangs).
   */
  setMode(mode: ProxyMode): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  const open = new Set<Socket>();
  const track = (socket: Socket): void => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (mode === 'refuse') return void client.destroy();
    if (mode === 'silent') return void client.resume();
    const upstream = connect(target.port, target.host);
    track(upstream);
    const relay = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        if (mode === 'forward') to.write(chunk);
      });
    relay(client, upstream);
    relay(upstream, client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${port}`,
    setMode(next) {
      mode = next;
      if (next === 'refuse') for (const socket of open) socket.destroy();
    },
    async close() {
      if (!server.listening) return;
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
