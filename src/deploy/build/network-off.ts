// Imported first by the sandboxed build entry: a docs build needs no network, so nothing it loads
// may open a socket, resolve a name or fetch. (Node 20's permission model does not cover the network.)
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';

const refuse = (): never => {
  throw new Error('network access is disabled in the docs build sandbox');
};
net.Socket.prototype.connect = refuse;
net.Server.prototype.listen = refuse;
dgram.Socket.prototype.bind = refuse;
dgram.Socket.prototype.send = refuse;
dns.lookup = refuse as unknown as typeof dns.lookup;
dns.promises.lookup = refuse;
Reflect.deleteProperty(globalThis, 'fetch');
Reflect.deleteProperty(globalThis, 'WebSocket');
