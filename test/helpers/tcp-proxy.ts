// A TCP proxy on loopback that a test can cut, to take a real database or cache away from the app
// without stopping the shared server other tests use.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Closes the listener and every open connection: the backend is "down" for the app. */
  cut(): Promise<void>;
  /** Listens again on the same port after `cut`: the backend is back. Does nothing while listening. */
  restore(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const listen = (port: number): Promise<net.Server> => {
    const server = net.createServer(forward);
    // A test that ends with the proxy still listening (restored) must not keep its process alive.
    server.unref();
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(server));
    });
  };
  function forward(client: net.Socket): void {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  }
  let server = await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    cut: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
    restore: async () => {
      if (!server.listening) server = await listen(port);
    },
  };
}

/** The URL with its host and port replaced by the proxy's. */
export function viaProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}
