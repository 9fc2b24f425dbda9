// A TCP proxy on loopback that a test can cut, to take a real database or cache away from the app
// without stopping the shared server other tests use.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Closes the listener and every open connection: the backend is "down" for the app. */
  cut(): Promise<void>;
  /** Listens again on the same port after `cut`: the backend is back. Does nothing while listening. */
  restore(): Promise<void>;
  /**
   * Stops passing on what the backend sends over the connections whose client sent something
   * matching `clientSent`, without closing them: a silent partition, as a dropped route or a stuck
   * middlebox makes one. The held bytes go on at `release`.
   */
  hold(clientSent: RegExp): void;
  release(): void;
}

interface Connection {
  /** What the client sent so far, up to a few kilobytes (for `hold`). */
  sent: string;
  held: Buffer[] | undefined;
  client: net.Socket;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const connections = new Set<Connection>();
  let holding: RegExp | undefined;
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
    const connection: Connection = { sent: '', held: undefined, client };
    connections.add(connection);
    client.on('close', () => connections.delete(connection));
    client.on('data', (chunk: Buffer) => {
      if (connection.sent.length < 4096) connection.sent += chunk.toString('latin1');
      if (holding?.test(connection.sent)) connection.held ??= [];
    });
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (connection.held) connection.held.push(chunk);
      else client.write(chunk);
    });
    // The backend closing ends the client's side too, held bytes first (as `pipe` would).
    upstream.on('end', () => {
      for (const chunk of connection.held ?? []) client.write(chunk);
      connection.held = undefined;
      client.end();
    });
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
    hold: (clientSent) => {
      holding = clientSent;
      for (const connection of connections) if (clientSent.test(connection.sent)) connection.held ??= [];
    },
    release: () => {
      holding = undefined;
      for (const connection of connections) {
        for (const chunk of connection.held ?? []) connection.client.write(chunk);
        connection.held = undefined;
      }
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
