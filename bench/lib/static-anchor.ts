// The @fastify/static anchor of bench/edge.ts: a bare Fastify serving one folder, in its own process
// as Blume and nginx are. Prints the port it listens on.
//   npx tsx bench/lib/static-anchor.ts <folder>
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';

const root = process.argv[2];
if (!root) throw new Error('usage: static-anchor.ts <folder>');
const app = Fastify({ logger: false });
await app.register(fastifyStatic, { root });
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening on ${address.replace('http://', '')}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
